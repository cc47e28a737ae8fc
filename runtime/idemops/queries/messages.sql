-- name: ListMessages :many
-- Lists the consumed messages that wait for support (dead) or for their
-- support retry (retry), oldest change first, of one consumer or all.
SELECT source, consumer, message_id, operation_id::text AS operation_id, state, attempts, max_attempts,
       coalesce(last_error, '')::text AS last_error, octet_length(body)::integer AS body_bytes, received_at, updated_at
FROM idempotency_inbox
WHERE state IN ('dead', 'retry')
  AND (@consumer::text = '' OR consumer = @consumer::text)
  AND (@state::text = '' OR state = @state::text)
ORDER BY updated_at, source, consumer, message_id
LIMIT @row_limit::integer;

-- name: LockMessage :one
-- Locks the message named by its operation id for a support action and
-- reads its key and state.
SELECT source, consumer, message_id, state FROM idempotency_inbox
WHERE operation_id = @operation_id::uuid AND state IN ('processed', 'failed', 'dead', 'retry')
FOR UPDATE;

-- name: InsertMessageAudit :one
-- Writes the audit row of a support retry of the locked message, reading
-- the state it moves from off the row itself, so that the audit table's
-- CHECK refuses a move out of any state but dead.
INSERT INTO idempotency_inbox_audit (source, consumer, message_id, actor, reason, from_state, to_state, at)
SELECT i.source, i.consumer, i.message_id, @actor::text, @reason::text, i.state, 'retry', now()
FROM idempotency_inbox AS i
WHERE i.source = @source::text AND i.consumer = @consumer::text AND i.message_id = @message_id::text
RETURNING id, from_state, at;

-- name: RetryMessage :execrows
-- Moves a dead message to retry: its consumer's Redrive delivers it once
-- more from the stored body.
UPDATE idempotency_inbox SET state = 'retry', updated_at = now()
WHERE source = @source::text AND consumer = @consumer::text AND message_id = @message_id::text AND state = 'dead';
