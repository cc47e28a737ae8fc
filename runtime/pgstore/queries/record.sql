-- name: ClaimRecord :one
-- Claims (scope, key) for a new operation. A concurrent claim of the same
-- key blocks on the primary key until the first transaction ends; returns
-- no row when a committed record already holds the key.
INSERT INTO idempotency_record (
    scope, idempotency_key, fingerprint, state, operation_id, created_at, expires_at, purge_at
) VALUES (
    @scope, @idempotency_key, @fingerprint, 'in_progress', @operation_id, @created_at, @expires_at, @purge_at
)
ON CONFLICT (scope, idempotency_key) DO NOTHING
RETURNING operation_id;

-- name: GetRecord :one
-- Reads the record that holds (scope, key). Run as its own statement after
-- ClaimRecord so that, under READ COMMITTED, it sees the record committed
-- by the transaction the claim waited for. Excludes the caller's own claim,
-- so it returns a row only when the key was already taken.
SELECT operation_id, fingerprint, state, response_status, response_headers, response_body, completed_at,
       expires_at, purge_at
FROM idempotency_record
WHERE scope = @scope AND idempotency_key = @idempotency_key AND operation_id <> @claimed_operation_id;

-- name: CompleteRecord :exec
-- Stores the final response of a claimed operation in the claiming
-- transaction; state is completed or failed.
UPDATE idempotency_record
SET state = @state, response_status = @response_status, response_headers = @response_headers,
    response_body = @response_body, completed_at = @completed_at
WHERE scope = @scope AND idempotency_key = @idempotency_key AND operation_id = @operation_id;

-- name: TombstoneExpired :execrows
-- Drops the stored response of at most @batch_size records past retention,
-- leaving a compact tombstone; skips rows another transaction holds.
UPDATE idempotency_record
SET state = 'tombstone', response_status = NULL, response_headers = NULL,
    response_body = NULL, expires_at = NULL
WHERE (scope, idempotency_key) IN (
    SELECT r.scope, r.idempotency_key
    FROM idempotency_record AS r
    WHERE r.expires_at <= @now
    ORDER BY r.expires_at
    LIMIT @batch_size
    FOR UPDATE SKIP LOCKED
);

-- name: DeletePurged :execrows
-- Deletes at most @batch_size records whose tombstone period has ended.
DELETE FROM idempotency_record
WHERE (scope, idempotency_key) IN (
    SELECT r.scope, r.idempotency_key
    FROM idempotency_record AS r
    WHERE r.purge_at <= @now
    ORDER BY r.purge_at
    LIMIT @batch_size
    FOR UPDATE SKIP LOCKED
);
