-- name: BoundLockWaits :one
-- Bounds every lock wait of the rest of the transaction at @lock_timeout
-- (SET LOCAL semantics: SQLSTATE 55P03 past it) and saves the previous
-- setting as idem.saved_lock_timeout, for the statement that holds the key
-- to put back. It is a statement of its own, queued before ClaimRecord,
-- OpenKey, TryOpenKey or TakeOver in the same round trip, because the
-- tables a statement reads or writes are locked when it is bound, before
-- anything in it runs: a bound set inside the statement would leave a wait
-- for a table lock (DDL, VACUUM FULL, LOCK TABLE in another session)
-- under the session's setting, unbounded by default, with only the
-- client's context to end it.
SELECT set_config('idem.saved_lock_timeout', current_setting('lock_timeout'), true) AS saved,
       set_config('lock_timeout', @lock_timeout::text, true) AS bounded;

-- name: ClaimRecord :one
-- Claims (scope, key) for a new operation, after BoundLockWaits in its
-- transaction. A concurrent claim of the same key blocks on the primary
-- key until the first transaction ends; returns no row when a committed
-- record already holds the key. BoundLockWaits bounds that wait and
-- RETURNING, which runs once the row is in, puts the previous
-- lock_timeout back, so the business function's own lock waits are not
-- cut short; a claim that returns no row leaves the bound in place until
-- the caller rolls back. Its deadlines are the database's: retention and
-- the tombstone period from now(), never a host's clock.
INSERT INTO idempotency_record (
    scope, idempotency_key, fingerprint, state, operation_id, operation, created_at, expires_at, purge_at
)
VALUES (@scope::text, @idempotency_key::text, @fingerprint::bytea, 'in_progress', @operation_id::uuid, @operation::text,
        now(), now() + make_interval(secs => @retention_seconds::float8),
        now() + make_interval(secs => @purge_seconds::float8))
ON CONFLICT (scope, idempotency_key) DO NOTHING
RETURNING operation_id, set_config('lock_timeout', current_setting('idem.saved_lock_timeout'), true) AS restored_lock_timeout;

-- name: GetRecord :one
-- Reads the committed record that holds (scope, key): after a ClaimRecord
-- that returned no row, as its own statement so that, under READ
-- COMMITTED, it sees the record committed by the transaction the claim
-- waited for; and after an advisory-protocol InsertRecord that met a
-- unique violation. No row means no record holds the key: it went
-- (swept) since the claim. read_at is the database's clock when the
-- statement ran, which the caller compares expires_at with.
SELECT operation_id, fingerprint, state, response_status, response_headers, response_body,
       completed_at, expires_at, statement_timestamp()::timestamptz AS read_at
FROM idempotency_record
WHERE scope = @scope AND idempotency_key = @idempotency_key;

-- name: CompleteRecord :exec
-- Stores the final outcome of an operation claimed in progress in this
-- transaction (claim-first, no checkpoint; see CompleteCheckpointed for
-- the others). It updates nothing unless the new state is completed or
-- failed (the table has no CHECK constraint on state, see its schema) and
-- the record is in progress.
UPDATE idempotency_record
SET state = @state::text, response_status = @response_status, response_headers = @response_headers,
    response_body = @response_body, completed_at = statement_timestamp()
WHERE scope = @scope AND idempotency_key = @idempotency_key AND operation_id = @operation_id
  AND state = 'in_progress' AND @state::text IN ('completed', 'failed');

-- name: TombstoneExpired :execrows
-- Drops the stored response of at most @batch_size decided records past
-- retention, leaving a compact tombstone due for deletion at purge_at;
-- skips rows another transaction holds. An operation in progress after a
-- checkpoint, or halted for support, keeps its record until it is decided:
-- a retry past retention is refused as expired all the same. Retention
-- ends on the database's clock, whoever sweeps.
UPDATE idempotency_record
SET state = 'tombstone', response_status = NULL, response_headers = NULL,
    response_body = NULL, expires_at = purge_at
WHERE (scope, idempotency_key) IN (
    SELECT r.scope, r.idempotency_key
    FROM idempotency_record AS r
    WHERE r.expires_at <= now() AND r.state NOT IN ('tombstone', 'in_progress', 'requires_recovery')
    ORDER BY r.expires_at
    LIMIT @batch_size
    FOR UPDATE SKIP LOCKED
);

-- name: DeletePurged :execrows
-- Deletes at most @batch_size tombstones whose tombstone period has ended
-- on the database's clock (a tombstone's expires_at is its purge_at).
DELETE FROM idempotency_record
WHERE (scope, idempotency_key) IN (
    SELECT r.scope, r.idempotency_key
    FROM idempotency_record AS r
    WHERE r.expires_at <= now() AND r.state = 'tombstone'
    ORDER BY r.expires_at
    LIMIT @batch_size
    FOR UPDATE SKIP LOCKED
);

-- name: OpenKey :one
-- The advisory protocol's first statement after BoundLockWaits, in the
-- implicit transaction of its pipeline (before its BEGIN): reads the
-- committed record that holds (scope, key) and, when there is none, takes
-- the transaction-level advisory lock on the key's 64-bit hash, its wait
-- bounded by BoundLockWaits (SQLSTATE 55P03 past it; the previous value
-- saved for RecheckKey to put back). When there is a
-- record it takes no lock and sets idem.replay to a sentence for the rest
-- of that transaction, so that RecheckKey, the next statement, fails
-- casting it to an integer (SQLSTATE 22P02) and the server rolls the
-- pipeline back by itself at its Sync: a replay is then this one round
-- trip and leaves the connection idle; the server logs the sentence as
-- the error's text. opened is '' when the lock is held.
SELECT r.operation_id, r.fingerprint, r.state, r.response_status, r.response_headers, r.response_body,
       r.completed_at, r.expires_at, statement_timestamp()::timestamptz AS read_at,
       CASE WHEN r.operation_id IS NULL THEN pg_advisory_xact_lock(@lock_key::bigint)::text
            ELSE set_config('idem.replay', 'idemgen replay: a record holds the key, this error ends the pipeline on purpose', true)
       END AS opened
FROM (SELECT) AS b
LEFT JOIN idempotency_record AS r ON r.scope = @scope AND r.idempotency_key = @idempotency_key;

-- name: TryOpenKey :one
-- OpenKey without waiting for the lock, for the reject policy: a lock
-- another transaction holds ends the pipeline the same way as a record
-- does, with its own sentence, so a refusal is one round trip too. It
-- follows BoundLockWaits all the same, which bounds its wait for the
-- record table's lock.
SELECT r.operation_id, r.fingerprint, r.state, r.response_status, r.response_headers, r.response_body,
       r.completed_at, r.expires_at, statement_timestamp()::timestamptz AS read_at,
       CASE WHEN r.operation_id IS NOT NULL
                THEN set_config('idem.replay', 'idemgen replay: a record holds the key, this error ends the pipeline on purpose', true)
            WHEN pg_try_advisory_xact_lock(@lock_key::bigint) THEN ''
            ELSE set_config('idem.replay', 'idemgen: an attempt holds the key, this error ends the pipeline on purpose', true)
       END AS opened
FROM (SELECT) AS b
LEFT JOIN idempotency_record AS r ON r.scope = @scope AND r.idempotency_key = @idempotency_key;

-- name: RecheckKey :one
-- OpenKey's second statement: fails after an OpenKey that took no lock
-- (see there); otherwise, holding the lock, reads the record again, as a
-- statement of its own so that under READ COMMITTED it sees a record
-- committed by the transaction the lock waited for, and puts the
-- previous lock_timeout back, so the business function's own lock waits
-- are not cut short. Its record columns are NULL when no record holds
-- the key.
SELECT r.operation_id, r.fingerprint, r.state, r.response_status, r.response_headers, r.response_body,
       r.completed_at, r.expires_at, statement_timestamp()::timestamptz AS read_at,
       set_config('lock_timeout', current_setting('idem.saved_lock_timeout'), true) AS restored
FROM (SELECT WHERE nullif(current_setting('idem.replay', true), '')::integer IS NULL) AS g
LEFT JOIN idempotency_record AS r ON r.scope = @scope AND r.idempotency_key = @idempotency_key;

-- name: InsertRecord :exec
-- Writes the record of a new operation once, completed or failed with its
-- response, in the business transaction, pipelined with its COMMIT. The
-- primary key stays the final arbiter: a record another transaction
-- committed meanwhile fails this INSERT with a unique violation (SQLSTATE
-- 23505), which aborts the transaction, business changes and all. The
-- caller passes only completed or failed as the state (QueueInsert checks).
-- Its times are the database's: created and its deadlines from now(), the
-- transaction's start, completed at this statement.
INSERT INTO idempotency_record (
    scope, idempotency_key, fingerprint, state, operation_id, operation, response_status, response_headers,
    response_body, created_at, completed_at, expires_at, purge_at
)
VALUES (@scope::text, @idempotency_key::text, @fingerprint::bytea, @state::text, @operation_id::uuid, @operation::text,
        @response_status::integer, @response_headers::jsonb, @response_body::bytea, now(), statement_timestamp(),
        now() + make_interval(secs => @retention_seconds::float8),
        now() + make_interval(secs => @purge_seconds::float8));
