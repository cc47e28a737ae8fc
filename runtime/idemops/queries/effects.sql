-- name: ListEffects :many
-- The effects (outbox rows) that match every filter given (a NULL filter
-- matches all), oldest first, each with its operation's idempotency key.
-- This is the one place an effect's state is derived, on the database's
-- clock: pending while a lease that has not run out holds it is running;
-- otherwise the stored state (a pending effect whose lease ran out is due
-- again, and its next claim records the lost attempt). The payload as
-- enqueued only when @with_payload (an operation's detail). A link matches
-- its operation's stored Location as in ListOperations.
SELECT e.effect_key, e.operation_id, e.operation, e.scope, e.idempotency_key, e.effect, e.seq, e.on_unknown,
       e.state, e.attempts, e.last_outcome, e.last_error, e.leased_by, e.lease_until, e.fencing_token,
       e.created_at, e.available_at, e.payload
FROM (
    SELECT o.effect_key, o.operation_id::text AS operation_id, coalesce(o.operation, '')::text AS operation, o.scope,
           coalesce(r.idempotency_key, '')::text AS idempotency_key, o.effect, o.seq, o.on_unknown,
           (CASE WHEN o.state = 'pending' AND o.lease_until > now() THEN 'running' ELSE o.state END)::text AS state,
           o.attempts, coalesce(o.last_outcome, '')::text AS last_outcome, coalesce(o.last_error, '')::text AS last_error,
           coalesce(o.leased_by, '')::text AS leased_by, o.lease_until, o.fencing_token, o.created_at, o.available_at,
           (CASE WHEN @with_payload::boolean THEN o.payload END)::bytea AS payload
    FROM idempotency_outbox AS o
    LEFT JOIN LATERAL (
        SELECT x.idempotency_key, x.response_headers FROM idempotency_record AS x
        WHERE x.scope = o.scope AND x.operation_id = o.operation_id
        LIMIT 1
    ) AS r ON true
    WHERE (sqlc.narg('scope')::text IS NULL OR o.scope = sqlc.narg('scope')::text)
      AND (sqlc.narg('idempotency_key')::text IS NULL OR r.idempotency_key = sqlc.narg('idempotency_key')::text)
      AND (sqlc.narg('operation_id')::uuid IS NULL OR o.operation_id = sqlc.narg('operation_id')::uuid)
      AND (sqlc.narg('operation')::text IS NULL OR o.operation = sqlc.narg('operation')::text)
      AND (sqlc.narg('older_than')::interval IS NULL OR o.created_at <= now() - sqlc.narg('older_than')::interval)
      AND (sqlc.narg('link')::text IS NULL OR EXISTS (
          SELECT 1 FROM jsonb_array_elements_text(r.response_headers -> 'Location') AS l(v)
          WHERE l.v = sqlc.narg('link')::text OR right(l.v, length(sqlc.narg('link')::text) + 1) = '/' || sqlc.narg('link')::text))
) AS e
WHERE sqlc.narg('state')::text IS NULL OR e.state = sqlc.narg('state')::text
ORDER BY e.created_at, e.operation_id, e.seq
LIMIT @max_rows::integer;

-- name: ListAttempts :many
-- The attempts of an operation's effects, in order.
SELECT seq, attempt, fencing_token, worker, coalesce(kind, '')::text AS kind, started_at, finished_at,
       coalesce(outcome, '')::text AS outcome, coalesce(error, '')::text AS error
FROM idempotency_effect_attempt
WHERE operation_id = @operation_id::uuid
ORDER BY seq, fencing_token;
