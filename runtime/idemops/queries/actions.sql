-- name: LockEffect :one
-- Locks the effect named by its key (and the operation id and sequence
-- number the key is made of) for a support action and reads its state.
SELECT scope, operation_id::text AS operation_id, state FROM idempotency_outbox
WHERE operation_id = @operation_id::uuid AND seq = @seq::integer AND effect_key = @effect_key::text
FOR UPDATE;

-- name: InsertAudit :one
-- Writes the audit row of a support action on the locked effect, reading
-- the state it moves from off the row itself, so that the audit table's
-- CHECKs refuse a move out of any state but requires_recovery and dead,
-- and a blank actor or reason, whatever the caller checked.
INSERT INTO idempotency_effect_audit (scope, operation_id, seq, actor, reason, from_state, to_state, at)
SELECT o.scope, o.operation_id, o.seq, @actor::text, @reason::text, o.state, @to_state::text, now()
FROM idempotency_outbox AS o
WHERE o.scope = @scope::text AND o.operation_id = @operation_id::uuid AND o.seq = @seq::integer
RETURNING id, from_state, at;

-- name: MoveEffect :execrows
-- Moves the effect to @to_state (done, failed, or pending to run again now
-- with fresh attempts), only out of requires_recovery or dead.
UPDATE idempotency_outbox
SET state = @to_state::text, lease_until = NULL, updated_at = now(),
    available_at = CASE WHEN @to_state::text = 'pending' THEN now() ELSE available_at END,
    attempts = CASE WHEN @to_state::text = 'pending' THEN 0 ELSE attempts END,
    last_outcome = 'support_' || @to_state::text, last_error = NULL
WHERE scope = @scope::text AND operation_id = @operation_id::uuid AND seq = @seq::integer
  AND state IN ('requires_recovery', 'dead');

-- name: ListAudit :many
-- Support's actions that match every filter given (a NULL filter matches
-- all), newest first, each with the key of the effect it moved.
SELECT a.id, a.at, a.actor, a.reason, a.from_state, a.to_state, a.scope, a.operation_id::text AS operation_id, a.seq,
       coalesce(o.effect_key, '')::text AS effect_key
FROM idempotency_effect_audit AS a
LEFT JOIN idempotency_outbox AS o ON o.scope = a.scope AND o.operation_id = a.operation_id AND o.seq = a.seq
WHERE (sqlc.narg('operation_id')::uuid IS NULL OR a.operation_id = sqlc.narg('operation_id')::uuid)
  AND (sqlc.narg('actor')::text IS NULL OR a.actor = sqlc.narg('actor')::text)
  AND (sqlc.narg('scope')::text IS NULL OR a.scope = sqlc.narg('scope')::text)
ORDER BY a.id DESC
LIMIT @max_rows::integer;
