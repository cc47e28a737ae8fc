-- name: ClaimEffects :many
-- Claims up to @max_claims due effects of the names in @effects at @now
-- for worker @worker until @lease_until: the lease moves available_at to
-- its end (an effect whose worker dies becomes due again then), bumps the
-- fencing token and the attempt count, marks an attempt whose lease ran
-- out as lost and starts the new attempt's history row, in one statement.
WITH due AS (
    SELECT scope, operation_id, seq FROM idempotency_outbox
    WHERE state = 'pending' AND available_at <= @now::timestamptz AND effect = ANY (@effects::text[])
    ORDER BY available_at
    LIMIT @max_claims::integer
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE idempotency_outbox AS o
    SET available_at = @lease_until::timestamptz, lease_until = @lease_until::timestamptz,
        leased_by = @worker::text, updated_at = @now::timestamptz,
        fencing_token = o.fencing_token + 1, attempts = o.attempts + 1,
        last_outcome = CASE WHEN o.lease_until IS NOT NULL THEN 'lost' ELSE o.last_outcome END
    FROM due
    WHERE o.scope = due.scope AND o.operation_id = due.operation_id AND o.seq = due.seq
    RETURNING o.scope, o.operation_id, o.seq, coalesce(o.operation, '') AS operation, o.effect, o.effect_key,
              o.on_unknown, o.payload, o.attempts, o.fencing_token, coalesce(o.last_outcome, '') AS last_outcome
), lost AS (
    UPDATE idempotency_effect_attempt AS t SET outcome = 'lost', finished_at = @now::timestamptz
    FROM claimed AS c
    WHERE t.scope = c.scope AND t.operation_id = c.operation_id AND t.seq = c.seq
      AND t.fencing_token < c.fencing_token AND t.outcome IS NULL
), started AS (
    INSERT INTO idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, started_at)
    SELECT c.scope, c.operation_id, c.seq, c.fencing_token, c.attempts, @worker::text, @now::timestamptz
    FROM claimed AS c
)
SELECT scope, operation_id, seq, operation, effect, effect_key, on_unknown, payload, attempts, fencing_token, last_outcome
FROM claimed;

-- name: RecordOutcome :one
-- Records an attempt's outcome: the effect's new state, due time, outcome
-- and error, and the attempt row's, only while the effect is still leased
-- under the attempt's fencing token. It returns 1 when it recorded and 0
-- when the lease was taken over.
WITH o AS (
    UPDATE idempotency_outbox
    SET state = @state::text, available_at = @available_at::timestamptz, lease_until = NULL,
        last_outcome = @outcome::text, last_error = sqlc.narg('error')::text, updated_at = @now::timestamptz
    WHERE scope = @scope::text AND operation_id = @operation_id::uuid AND seq = @seq::integer
      AND fencing_token = @fencing_token::bigint
      AND state = 'pending' AND lease_until IS NOT NULL
    RETURNING scope, operation_id, seq, fencing_token
), a AS (
    UPDATE idempotency_effect_attempt AS t
    SET finished_at = @now::timestamptz, outcome = @outcome::text, error = sqlc.narg('error')::text, kind = @kind::text
    FROM o
    WHERE t.scope = o.scope AND t.operation_id = o.operation_id AND t.seq = o.seq AND t.fencing_token = o.fencing_token
)
SELECT count(*) FROM o;

-- name: OldestDue :one
-- Reads when the oldest due effect became due (NULL: none is due).
SELECT min(available_at)::timestamptz AS oldest FROM idempotency_outbox
WHERE state = 'pending' AND available_at <= @now::timestamptz;
