package outbox

// claimSQL claims up to $3 due effects of the names in $2 at $1 for worker
// $5 until $4: the lease moves available_at to its end (an effect whose
// worker dies becomes due again then), bumps the fencing token and the
// attempt count, marks an attempt whose lease ran out as lost and starts
// the new attempt's history row, in one statement.
const claimSQL = `WITH due AS (
    SELECT scope, operation_id, seq FROM idempotency_outbox
    WHERE state = 'pending' AND available_at <= $1 AND effect = ANY ($2::text[])
    ORDER BY available_at
    LIMIT $3
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE idempotency_outbox AS o
    SET available_at = $4, lease_until = $4, leased_by = $5, updated_at = $1,
        fencing_token = o.fencing_token + 1, attempts = o.attempts + 1,
        last_outcome = CASE WHEN o.lease_until IS NOT NULL THEN 'lost' ELSE o.last_outcome END
    FROM due
    WHERE o.scope = due.scope AND o.operation_id = due.operation_id AND o.seq = due.seq
    RETURNING o.scope, o.operation_id, o.seq, coalesce(o.operation, ''), o.effect, o.effect_key, o.on_unknown,
              o.payload, o.attempts, o.fencing_token, coalesce(o.last_outcome, '')
), lost AS (
    UPDATE idempotency_effect_attempt AS t SET outcome = 'lost', finished_at = $1
    FROM claimed AS c
    WHERE t.scope = c.scope AND t.operation_id = c.operation_id AND t.seq = c.seq
      AND t.fencing_token < c.fencing_token AND t.outcome IS NULL
), started AS (
    INSERT INTO idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, started_at)
    SELECT c.scope, c.operation_id, c.seq, c.fencing_token, c.attempts, $5, $1 FROM claimed AS c
)
SELECT * FROM claimed`

// recordSQL records an attempt's outcome: the effect's new state, due time,
// outcome and error, and the attempt row's, only while the effect is still
// leased under the attempt's fencing token ($4). It returns 1 when it
// recorded and 0 when the lease was taken over.
const recordSQL = `WITH o AS (
    UPDATE idempotency_outbox
    SET state = $5, available_at = $6, lease_until = NULL, last_outcome = $7, last_error = $8, updated_at = $9
    WHERE scope = $1 AND operation_id = $2 AND seq = $3 AND fencing_token = $4
      AND state = 'pending' AND lease_until IS NOT NULL
    RETURNING scope, operation_id, seq, fencing_token
), a AS (
    UPDATE idempotency_effect_attempt AS t SET finished_at = $9, outcome = $7, error = $8, kind = $10
    FROM o
    WHERE t.scope = o.scope AND t.operation_id = o.operation_id AND t.seq = o.seq AND t.fencing_token = o.fencing_token
)
SELECT count(*) FROM o`

// oldestDueSQL reads when the oldest due effect became due.
const oldestDueSQL = `SELECT min(available_at) FROM idempotency_outbox WHERE state = 'pending' AND available_at <= $1`
