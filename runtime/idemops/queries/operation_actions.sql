-- name: LockOperation :one
-- Locks the record of the operation @operation_id for a support action on
-- the operation itself and reads its stored state, whether it is past
-- retention on the database's clock, and whether it has a progress row
-- (a recovery point to resume from). It locks the record only: the
-- runtime locks an operation's progress row before its record, but only
-- while the record is in progress, and an action takes the progress row
-- only after it found the record in requires_recovery, which no attempt
-- holds.
SELECT r.scope, r.idempotency_key, r.state, (r.expires_at <= now())::boolean AS expired,
       EXISTS (SELECT 1 FROM idempotency_progress AS p
               WHERE p.scope = r.scope AND p.idempotency_key = r.idempotency_key)::boolean AS has_progress
FROM idempotency_record AS r
WHERE r.operation_id = @operation_id::uuid
FOR UPDATE OF r;

-- name: InsertOperationAudit :one
-- Writes the audit row of a support action on the locked operation,
-- reading the state it moves from off the record itself, so that the
-- audit table's CHECKs refuse a blank actor or reason and a move to any
-- state but in_progress, completed and failed, whatever the caller
-- checked.
INSERT INTO idempotency_operation_audit (scope, operation_id, actor, reason, from_state, to_state, at)
SELECT r.scope, r.operation_id, @actor::text, @reason::text, r.state, @to_state::text, now()
FROM idempotency_record AS r
WHERE r.scope = @scope::text AND r.idempotency_key = @idempotency_key::text
RETURNING id, from_state, at;

-- name: ResumeOperation :execrows
-- Resumes an operation halted for support: its record goes back to
-- in_progress, and its progress row gets a lease that has run out (now(),
-- so the next retry or the completer takes it over at once, from its
-- last recovery point) and the actor who resumed it, which makes that
-- attempt call again the step whose outcome was unknown, with the same
-- step key. Only out of requires_recovery and with a progress row.
WITH progress AS (
    UPDATE idempotency_progress AS p
    SET lease_until = now(), resumed_by = @actor::text, updated_at = now()
    WHERE p.scope = @scope::text AND p.idempotency_key = @idempotency_key::text
    RETURNING p.scope, p.idempotency_key
)
UPDATE idempotency_record AS r
SET state = 'in_progress', completed_at = NULL
FROM progress
WHERE r.scope = progress.scope AND r.idempotency_key = progress.idempotency_key AND r.state = 'requires_recovery';

-- name: ResolveOperation :execrows
-- Settles an operation halted for support as completed or failed with the
-- answer every later retry receives (stored as the executor stores one:
-- status, headers kept for replays as a JSON object of name to values,
-- body), and deletes its progress row. Only out of requires_recovery, and
-- only to completed or failed.
WITH progress AS (
    DELETE FROM idempotency_progress AS p
    WHERE p.scope = @scope::text AND p.idempotency_key = @idempotency_key::text
      AND @to_state::text IN ('completed', 'failed')
)
UPDATE idempotency_record AS r
SET state = @to_state::text, response_status = @response_status::integer,
    response_headers = @response_headers::jsonb, response_body = @response_body::bytea, completed_at = now()
WHERE r.scope = @scope::text AND r.idempotency_key = @idempotency_key::text AND r.state = 'requires_recovery'
  AND @to_state::text IN ('completed', 'failed');

-- name: ListOperationAudit :many
-- Support's actions on operations that match every filter given (a NULL
-- filter matches all), newest first.
SELECT a.id, a.at, a.actor, a.reason, a.from_state, a.to_state, a.scope, a.operation_id::text AS operation_id
FROM idempotency_operation_audit AS a
WHERE (sqlc.narg('operation_id')::uuid IS NULL OR a.operation_id = sqlc.narg('operation_id')::uuid)
  AND (sqlc.narg('actor')::text IS NULL OR a.actor = sqlc.narg('actor')::text)
  AND (sqlc.narg('scope')::text IS NULL OR a.scope = sqlc.narg('scope')::text)
ORDER BY a.id DESC
LIMIT @max_rows::integer;
