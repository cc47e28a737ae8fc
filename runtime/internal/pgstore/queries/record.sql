-- name: ClaimRecord :one
-- Claims (scope, key) for a new operation. A concurrent claim of the same
-- key blocks on the primary key until the first transaction ends; returns
-- no row when a committed record already holds the key. The FROM clause
-- bounds that wait (SET LOCAL lock_timeout semantics) and RETURNING, which
-- runs once the row is in, puts the previous lock_timeout back, so the
-- business function's own lock waits are not cut short; all in this one
-- statement. A claim that returns no row leaves the bound in place until
-- the caller rolls back.
INSERT INTO idempotency_record (
    scope, idempotency_key, fingerprint, state, operation_id, created_at, expires_at, purge_at
)
SELECT @scope::text, @idempotency_key::text, @fingerprint::bytea, 'in_progress', @operation_id::uuid,
       @created_at::timestamptz, @expires_at::timestamptz, @purge_at::timestamptz
FROM (
    SELECT set_config('idem.saved_lock_timeout', current_setting('lock_timeout'), true) AS saved,
           set_config('lock_timeout', @lock_timeout::text, true) AS bounded
) AS claim_lock_timeout
ON CONFLICT (scope, idempotency_key) DO NOTHING
RETURNING operation_id, set_config('lock_timeout', current_setting('idem.saved_lock_timeout'), true) AS restored_lock_timeout;

-- name: GetRecord :one
-- Reads the committed record that holds (scope, key), after a ClaimRecord
-- that returned no row. It runs as its own statement so that, under READ
-- COMMITTED, it sees the record committed by the transaction the claim
-- waited for. No row means the record went (swept) in between.
SELECT operation_id, fingerprint, state, response_status, response_headers, response_body,
       completed_at, expires_at
FROM idempotency_record
WHERE scope = @scope AND idempotency_key = @idempotency_key;

-- name: CompleteRecord :exec
-- Stores the final response of a claimed operation in the claiming
-- transaction. It updates nothing unless state is completed or failed: the
-- table has no CHECK constraint on state (see its schema).
UPDATE idempotency_record
SET state = @state::text, response_status = @response_status, response_headers = @response_headers,
    response_body = @response_body, completed_at = @completed_at
WHERE scope = @scope AND idempotency_key = @idempotency_key AND operation_id = @operation_id
  AND @state::text IN ('completed', 'failed');

-- name: TombstoneExpired :execrows
-- Drops the stored response of at most @batch_size records past retention,
-- leaving a compact tombstone due for deletion at purge_at; skips rows
-- another transaction holds.
UPDATE idempotency_record
SET state = 'tombstone', response_status = NULL, response_headers = NULL,
    response_body = NULL, expires_at = purge_at
WHERE (scope, idempotency_key) IN (
    SELECT r.scope, r.idempotency_key
    FROM idempotency_record AS r
    WHERE r.expires_at <= @now AND r.state <> 'tombstone'
    ORDER BY r.expires_at
    LIMIT @batch_size
    FOR UPDATE SKIP LOCKED
);

-- name: DeletePurged :execrows
-- Deletes at most @batch_size tombstones whose tombstone period has ended
-- (a tombstone's expires_at is its purge_at).
DELETE FROM idempotency_record
WHERE (scope, idempotency_key) IN (
    SELECT r.scope, r.idempotency_key
    FROM idempotency_record AS r
    WHERE r.expires_at <= @now AND r.state = 'tombstone'
    ORDER BY r.expires_at
    LIMIT @batch_size
    FOR UPDATE SKIP LOCKED
);
