-- name: InsertCheckpoint :one
-- The advisory protocol's first checkpoint of a new operation: writes its
-- record in progress and its progress row (the recovery point, its state,
-- the request, fencing token 1 and a lease from the database's now();
-- the record's deadlines from now() too, as ClaimRecord's), in the
-- business transaction, pipelined with its COMMIT. The record's
-- primary key stays the final arbiter, as for InsertRecord.
WITH record AS (
    INSERT INTO idempotency_record (
        scope, idempotency_key, fingerprint, state, operation_id, operation, created_at, expires_at, purge_at
    )
    VALUES (@scope::text, @idempotency_key::text, @fingerprint::bytea, 'in_progress', @operation_id::uuid,
            @operation::text, now(), now() + make_interval(secs => @retention_seconds::float8),
            now() + make_interval(secs => @purge_seconds::float8))
    RETURNING scope, idempotency_key, operation_id, operation
)
INSERT INTO idempotency_progress (
    scope, idempotency_key, operation, operation_id, fencing_token, lease_until, checkpoint, checkpoint_state,
    request, updated_at, trace_context
)
SELECT record.scope, record.idempotency_key, record.operation, record.operation_id, 1,
       now() + make_interval(secs => @lease_seconds::float8), @checkpoint::text, @checkpoint_state::bytea,
       @request::bytea, now(), nullif(@trace_context::text, '')
FROM record
RETURNING fencing_token;

-- name: SaveCheckpoint :one
-- Every other checkpoint, on a record that exists: the first of an
-- operation claim-first claimed in this transaction (@fencing_token 0)
-- inserts its progress row with token 1 and the request; a later one
-- updates the row the caller holds under @fencing_token (its step locked
-- it, FenceStep), renews the lease and ends a resume by support (see
-- TakeOver). No row means the token was replaced.
INSERT INTO idempotency_progress AS p (
    scope, idempotency_key, operation, operation_id, fencing_token, lease_until, checkpoint, checkpoint_state,
    request, updated_at, trace_context
)
VALUES (@scope::text, @idempotency_key::text, @operation::text, @operation_id::uuid, 1,
        now() + make_interval(secs => @lease_seconds::float8), @checkpoint::text, @checkpoint_state::bytea,
        @request::bytea, now(), nullif(@trace_context::text, ''))
ON CONFLICT (scope, idempotency_key) DO UPDATE
SET checkpoint = excluded.checkpoint, checkpoint_state = excluded.checkpoint_state,
    lease_until = excluded.lease_until, resumed_by = NULL, updated_at = excluded.updated_at
WHERE p.fencing_token = @fencing_token::bigint AND @fencing_token::bigint > 0
RETURNING p.fencing_token;

-- name: FenceStep :one
-- The first statement of every step after a checkpoint: renews the lease
-- of the operation the caller holds under @fencing_token, and with it
-- locks the progress row until the step ends, so that a takeover waits
-- for a running step instead of racing it. No row means another attempt
-- took the operation over: the step must not run.
UPDATE idempotency_progress
SET lease_until = now() + make_interval(secs => @lease_seconds::float8), updated_at = now()
WHERE scope = @scope AND idempotency_key = @idempotency_key AND fencing_token = @fencing_token
RETURNING fencing_token;

-- name: CompleteCheckpointed :execrows
-- Stores the final outcome of an operation that checkpointed, under the
-- caller's fencing token: deletes its progress row and updates its record,
-- in one statement; 0 rows means the token was replaced and nothing
-- changed. It updates nothing unless the new state is completed or failed.
WITH progress AS (
    DELETE FROM idempotency_progress AS d
    WHERE d.scope = @scope AND d.idempotency_key = @idempotency_key AND d.fencing_token = @fencing_token
      AND @state::text IN ('completed', 'failed')
    RETURNING d.scope, d.idempotency_key
)
UPDATE idempotency_record AS r
SET state = @state::text, response_status = @response_status, response_headers = @response_headers,
    response_body = @response_body, completed_at = statement_timestamp()
FROM progress
WHERE r.scope = progress.scope AND r.idempotency_key = progress.idempotency_key AND r.state = 'in_progress';

-- name: HaltOperation :execrows
-- Halts an operation whose outcome is unknown under the caller's fencing
-- token, for a person to resolve: its record goes to requires_recovery
-- (every retry is refused so, naming the operation) and its progress row
-- stays, with the recovery point reached and a lease that never runs
-- out, for support to resume or resolve it. 0 rows means the token was
-- replaced.
WITH progress AS (
    UPDATE idempotency_progress AS h
    SET lease_until = 'infinity', checkpoint = @checkpoint::text, checkpoint_state = @checkpoint_state::bytea,
        updated_at = now()
    WHERE h.scope = @scope AND h.idempotency_key = @idempotency_key AND h.fencing_token = @fencing_token
    RETURNING h.scope, h.idempotency_key
)
UPDATE idempotency_record AS r
SET state = 'requires_recovery', completed_at = statement_timestamp()
FROM progress
WHERE r.scope = progress.scope AND r.idempotency_key = progress.idempotency_key AND r.state = 'in_progress';

-- name: TakeOver :one
-- Takes over an operation in progress whose lease has run out on the
-- database's clock, for a retry with the same fingerprint or the
-- completer: a new fencing token and a new lease, returning what the
-- operation needs to resume. BoundLockWaits, before it in the same
-- implicit transaction, bounds the wait for a step that holds the row,
-- and for the tables' locks (SQLSTATE 55P03 past it). No row means the lease still runs (or the operation was
-- decided meanwhile). resumed_by_support reports that a person resumed the
-- operation after it halted and it has reached no recovery point since.
UPDATE idempotency_progress AS p
SET fencing_token = p.fencing_token + 1,
    lease_until = now() + make_interval(secs => @lease_seconds::float8), updated_at = now()
FROM idempotency_record AS r
WHERE p.scope = @scope AND p.idempotency_key = @idempotency_key AND p.lease_until <= now()
  AND r.scope = p.scope AND r.idempotency_key = p.idempotency_key
  AND r.fingerprint = @fingerprint::bytea AND r.state = 'in_progress'
RETURNING p.operation_id, p.fencing_token, p.checkpoint, p.checkpoint_state, p.request,
          p.resumed_by IS NOT NULL AS resumed_by_support, coalesce(p.trace_context, '') AS trace_context;

-- name: GiveUpLease :exec
-- Ends the lease of an attempt that stops after a checkpoint without
-- deciding its operation: at once, so that the next retry takes it over,
-- or after a backoff the completer chose.
UPDATE idempotency_progress
SET lease_until = now() + make_interval(secs => @delay_seconds::float8), updated_at = now()
WHERE scope = @scope AND idempotency_key = @idempotency_key AND fencing_token = @fencing_token;

-- name: ListAbandoned :many
-- Operations in progress whose lease has run out, of the named operations,
-- oldest lease first: the completer's candidates. It locks nothing; the
-- takeover decides which completer drives each.
SELECT p.scope, p.idempotency_key, p.operation, p.fencing_token, r.fingerprint
FROM idempotency_progress AS p
JOIN idempotency_record AS r ON r.scope = p.scope AND r.idempotency_key = p.idempotency_key
WHERE p.lease_until <= now() AND r.state = 'in_progress' AND p.operation = ANY (@operations::text[])
ORDER BY p.lease_until
LIMIT @max_rows;
