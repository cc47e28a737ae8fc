-- name: InsertCheckpoint :one
-- The advisory protocol's first checkpoint of a new operation: writes its
-- record in progress with the recovery point, its state, fencing token 1
-- and a lease from the database's now(), in the business transaction,
-- pipelined with its COMMIT. The primary key stays the final arbiter, as
-- for InsertRecord.
INSERT INTO idempotency_record (
    scope, idempotency_key, fingerprint, state, operation_id, created_at, expires_at, purge_at,
    checkpoint, checkpoint_state, fencing_token, lease_until
)
VALUES (@scope::text, @idempotency_key::text, @fingerprint::bytea, 'in_progress', @operation_id::uuid,
        @created_at::timestamptz, @expires_at::timestamptz, @purge_at::timestamptz,
        @checkpoint::text, @checkpoint_state::bytea, 1, now() + make_interval(secs => @lease_seconds::float8))
RETURNING fencing_token;

-- name: SaveCheckpoint :one
-- Every other checkpoint: stores the recovery point and its state on the
-- record in progress that the caller holds under @fencing_token (0 for a
-- record claim-first claimed in this transaction, which then gets token
-- 1), and renews the lease. No row means the token was replaced.
UPDATE idempotency_record
SET checkpoint = @checkpoint::text, checkpoint_state = @checkpoint_state::bytea,
    fencing_token = greatest(fencing_token, 1),
    lease_until = now() + make_interval(secs => @lease_seconds::float8)
WHERE scope = @scope AND idempotency_key = @idempotency_key AND operation_id = @operation_id
  AND state = 'in_progress' AND fencing_token = @fencing_token
RETURNING fencing_token;

-- name: FenceStep :one
-- The first statement of every step after a checkpoint: renews the lease
-- of the record in progress that the caller holds under @fencing_token,
-- and with it locks the row until the step ends, so that a takeover waits
-- for a running step instead of racing it. No row means another attempt
-- took the operation over: the step must not run.
UPDATE idempotency_record
SET lease_until = now() + make_interval(secs => @lease_seconds::float8)
WHERE scope = @scope AND idempotency_key = @idempotency_key
  AND state = 'in_progress' AND fencing_token = @fencing_token
RETURNING fencing_token;

-- name: TakeOver :one
-- Takes over an operation in progress whose lease has run out on the
-- database's clock, for a retry with the same fingerprint: a new fencing
-- token and a new lease, returning what the operation needs to resume.
-- The FROM clause bounds the wait for a step that holds the row (SET
-- LOCAL lock_timeout semantics; SQLSTATE 55P03 past it). No row means the
-- lease still runs (or the operation was decided meanwhile).
UPDATE idempotency_record AS r
SET fencing_token = r.fencing_token + 1,
    lease_until = now() + make_interval(secs => @lease_seconds::float8)
FROM (SELECT set_config('lock_timeout', @lock_timeout::text, true) AS bounded) AS b
WHERE r.scope = @scope AND r.idempotency_key = @idempotency_key AND r.fingerprint = @fingerprint::bytea
  AND r.state = 'in_progress' AND r.lease_until <= now()
RETURNING r.operation_id, r.fencing_token, coalesce(r.checkpoint, '')::text AS checkpoint, r.checkpoint_state;

-- name: GiveUpLease :exec
-- Ends the lease of an attempt that stops after a checkpoint without
-- deciding its operation, so that the next retry takes it over at once.
UPDATE idempotency_record
SET lease_until = now()
WHERE scope = @scope AND idempotency_key = @idempotency_key
  AND state = 'in_progress' AND fencing_token = @fencing_token;
