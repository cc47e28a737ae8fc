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
-- that returned no row, or after LockKey. It runs as its own statement so
-- that, under READ COMMITTED, it sees the record committed by the
-- transaction the claim or the lock waited for. No row means no record
-- holds the key: it went (swept) since the claim, or none was committed
-- while the lock was awaited.
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

-- name: LookupRecord :one
-- The advisory protocol's first statement, in the implicit transaction of
-- its pipeline (before its BEGIN): reads the committed record that holds
-- (scope, key) and, when there is one, sets idem.replay to a sentence for
-- the rest of that transaction, so that LockKey (or TryLockKey), the next
-- statement, fails casting it to an integer (SQLSTATE 22P02) and the
-- server rolls the pipeline back by itself at its Sync. A replay is then
-- this one round trip, and leaves the connection idle; the server logs
-- the sentence as the error's text.
SELECT operation_id, fingerprint, state, response_status, response_headers, response_body,
       completed_at, expires_at,
       set_config('idem.replay', 'idemgen replay: a record holds the key, this error ends the pipeline on purpose', true) AS replay
FROM idempotency_record
WHERE scope = @scope AND idempotency_key = @idempotency_key;

-- name: LockKey :exec
-- Takes the transaction-level advisory lock on the 64-bit hash of (scope,
-- key), still in the pipeline's implicit transaction, which the BEGIN that
-- follows turns into the operation's transaction, lock and all. The FROM
-- clause fails after a LookupRecord that found a record, and otherwise
-- bounds the wait (SET LOCAL lock_timeout semantics; SQLSTATE 55P03 past
-- it); the select list, evaluated in order, puts the previous lock_timeout
-- back once the lock is held, so the business function's own lock waits
-- are not cut short. (idem.replay is '' once a transaction that set it has
-- ended.)
SELECT pg_advisory_xact_lock(@key_hash::bigint) AS locked, set_config('lock_timeout', b.saved, true) AS restored
FROM (SELECT current_setting('lock_timeout') AS saved, set_config('lock_timeout', @lock_timeout::text, true) AS bounded
      WHERE nullif(current_setting('idem.replay', true), '')::integer IS NULL) AS b;

-- name: TryLockKey :one
-- LockKey without waiting, for the reject policy: false when another
-- transaction holds the key's lock. It fails like LockKey after a
-- LookupRecord that found a record.
SELECT pg_try_advisory_xact_lock(@key_hash::bigint) AS locked
FROM (SELECT WHERE nullif(current_setting('idem.replay', true), '')::integer IS NULL) AS b;

-- name: InsertRecord :exec
-- Writes the record of a new operation once, completed or failed with its
-- response, in the business transaction, pipelined with its COMMIT. The
-- primary key stays the final arbiter: a record another transaction
-- committed meanwhile fails this INSERT with a unique violation (SQLSTATE
-- 23505), which aborts the transaction, business changes and all. The
-- caller passes only completed or failed as the state (QueueInsert checks).
INSERT INTO idempotency_record (
    scope, idempotency_key, fingerprint, state, operation_id, response_status, response_headers,
    response_body, created_at, completed_at, expires_at, purge_at
)
VALUES (@scope::text, @idempotency_key::text, @fingerprint::bytea, @state::text, @operation_id::uuid,
        @response_status::integer, @response_headers::jsonb, @response_body::bytea, @created_at::timestamptz,
        @completed_at::timestamptz, @expires_at::timestamptz, @purge_at::timestamptz);
