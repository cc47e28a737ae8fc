-- name: LockMessage :exec
-- Takes the message's transaction-level advisory lock, so that of two
-- deliveries of one message only one runs its handler at a time; the
-- other waits and then finds the row the first committed. The two-key
-- form keeps these locks apart from the executor's single-key ones; a
-- hash collision only serialises two messages, and the primary key stays
-- the final arbiter. It follows pgstore's BoundLockWaits and precedes
-- ClaimMessage in one round trip: BoundLockWaits bounds its wait, and
-- ClaimMessage's, and ClaimMessage puts the previous bound back.
SELECT pg_advisory_xact_lock(1768842872, hashtext(@source::text || chr(31) || @consumer::text || chr(31) || @message_id::text));

-- name: GetMessage :one
-- Reads what the inbox knows of a message. pgstore's BoundLockWaits,
-- before it in the same round trip and implicit transaction, bounds its
-- wait for the inbox table's lock (ALTER TABLE, VACUUM FULL).
SELECT state, fingerprint, attempts, operation_id
FROM idempotency_inbox
WHERE source = @source AND consumer = @consumer AND message_id = @message_id;

-- name: ClaimMessage :one
-- Records, in the handler's transaction and before the handler runs, that
-- the message is processed: its changes and this row commit together, or
-- neither does. It runs under the message's lock, and claims a message
-- the inbox has not decided: no row, or failed attempts (or support's
-- retry) with the same fingerprint. A row processed, dead or with another
-- fingerprint is left as it is and no row is returned: the caller reads
-- it (GetMessage) for its answer. The body kept for support is dropped.
-- Its times are the database's now(), the transaction's start, and
-- retention starts there, as a record's deadlines do: a host whose clock
-- is off neither shortens nor stretches it. Its waits for the inbox
-- table's lock and for a concurrent row are bounded by pgstore's
-- BoundLockWaits before it in the same round trip, and RETURNING, which
-- runs once the row is in, puts the previous lock_timeout back, so that
-- the handler's own statements wait as they would anywhere else.
INSERT INTO idempotency_inbox AS i (
    source, consumer, message_id, operation_id, state, fingerprint, attempts, max_attempts,
    received_at, updated_at, processed_at, expires_at
) VALUES (
    @source::text, @consumer::text, @message_id::text, @operation_id::uuid, 'processed', @fingerprint::bytea, 1,
    @max_attempts::integer, now(), now(), now(), now() + make_interval(secs => @retention_seconds::float8)
)
ON CONFLICT (source, consumer, message_id) DO UPDATE
SET state = 'processed', attempts = i.attempts + 1, body = NULL,
    updated_at = excluded.updated_at, processed_at = excluded.processed_at, expires_at = excluded.expires_at
WHERE i.state IN ('failed', 'retry') AND i.fingerprint = excluded.fingerprint
RETURNING attempts, set_config('lock_timeout', current_setting('idem.saved_lock_timeout'), true) AS restored_lock_timeout;

-- name: RecordFailure :one
-- Counts a failed attempt, in a short transaction of its own after the
-- handler's rolled back. The message becomes dead when its attempts reach
-- max_attempts, or when it failed again after support's retry; a row
-- already processed or dead (by a concurrent delivery) is left as it is,
-- and then no row is returned. pgstore's BoundLockWaits, before it in the
-- same round trip and implicit transaction, bounds its lock waits.
INSERT INTO idempotency_inbox AS i (
    source, consumer, message_id, operation_id, state, fingerprint, attempts, max_attempts, last_error, body,
    received_at, updated_at
) VALUES (
    @source::text, @consumer::text, @message_id::text, @operation_id::uuid,
    CASE WHEN @max_attempts::integer <= 1 THEN 'dead' ELSE 'failed' END,
    @fingerprint::bytea, 1, @max_attempts::integer, @last_error::text, @body::bytea, now(), now()
)
ON CONFLICT (source, consumer, message_id) DO UPDATE
SET attempts = i.attempts + 1,
    state = CASE WHEN i.state = 'retry' OR i.attempts + 1 >= excluded.max_attempts THEN 'dead' ELSE 'failed' END,
    max_attempts = excluded.max_attempts, last_error = excluded.last_error, body = excluded.body,
    updated_at = excluded.updated_at
WHERE i.state IN ('failed', 'retry')
RETURNING state, attempts;

-- name: ListRetries :many
-- Lists up to @batch messages of @consumer that support asked to retry,
-- with their stored bodies, oldest request first.
SELECT source, message_id, body FROM idempotency_inbox
WHERE consumer = @consumer::text AND state = 'retry'
ORDER BY updated_at
LIMIT @batch::integer;
