-- name: ListOperations :many
-- The operations (idempotency records) that match every filter given (a
-- NULL filter matches all), oldest first, with what support shows of them.
-- This is the one place an operation's state is derived, on the
-- database's clock: a tombstone is tombstone; any other record past
-- expires_at (the end of retention) is expired, which a retry is told as
-- operation-expired whether or not the sweeper has run; otherwise the
-- stored state. So is the lease of an operation in progress after a
-- recovery point (its progress row): halted while it waits for a person
-- (a lease that never runs out), live until lease_until, expired after it
-- (the next retry or the completer takes the operation over); '' without
-- a progress row. The operation's name is the record's, or, for a record
-- written before it kept one, its outbox rows'; the effect counts come
-- from its outbox rows; the stored response's headers and body, and the
-- request an operation in progress after a recovery point keeps for the
-- completer, only when @with_response. A link matches the stored
-- response's Location, whole or as its last path segments (/orders/42 is
-- found by 42 and by orders/42);
-- it reads every record of the other filters' choice, so support narrows
-- by scope or age on a large table.
SELECT o.operation_id, o.scope, o.idempotency_key, o.state, o.response_status, o.response_headers, o.response_body,
       o.created_at, o.completed_at, o.expires_at, o.operation, o.effects, o.effects_waiting,
       o.recovery_point, o.lease, o.lease_until, o.fencing_token, o.resumed_by, o.request
FROM (
    SELECT r.operation_id::text AS operation_id, r.scope, r.idempotency_key,
           (CASE WHEN r.state = 'tombstone' THEN 'tombstone'
                 WHEN r.expires_at <= now() THEN 'expired'
                 ELSE r.state END)::text AS state,
           coalesce(r.response_status, 0)::integer AS response_status,
           (CASE WHEN @with_response::boolean THEN r.response_headers END)::jsonb AS response_headers,
           (CASE WHEN @with_response::boolean THEN r.response_body END)::bytea AS response_body,
           r.created_at, r.completed_at, r.expires_at,
           coalesce(r.operation, e.operation, '')::text AS operation,
           e.effects::integer AS effects, e.waiting::integer AS effects_waiting,
           coalesce(p.checkpoint, '')::text AS recovery_point,
           (CASE WHEN p.scope IS NULL THEN ''
                 WHEN p.lease_until = 'infinity' THEN 'halted'
                 WHEN p.lease_until > now() THEN 'live'
                 ELSE 'expired' END)::text AS lease,
           (CASE WHEN p.lease_until <> 'infinity' THEN p.lease_until END)::timestamptz AS lease_until,
           coalesce(p.fencing_token, 0)::bigint AS fencing_token,
           coalesce(p.resumed_by, '')::text AS resumed_by,
           (CASE WHEN @with_response::boolean THEN p.request END)::bytea AS request
    FROM idempotency_record AS r
    LEFT JOIN idempotency_progress AS p ON p.scope = r.scope AND p.idempotency_key = r.idempotency_key
    CROSS JOIN LATERAL (
        SELECT min(x.operation) AS operation, count(*) AS effects,
               count(*) FILTER (WHERE x.state IN ('requires_recovery', 'dead')) AS waiting
        FROM idempotency_outbox AS x
        WHERE x.scope = r.scope AND x.operation_id = r.operation_id
    ) AS e
    WHERE (sqlc.narg('scope')::text IS NULL OR r.scope = sqlc.narg('scope')::text)
      AND (sqlc.narg('idempotency_key')::text IS NULL OR r.idempotency_key = sqlc.narg('idempotency_key')::text)
      AND (sqlc.narg('operation_id')::uuid IS NULL OR r.operation_id = sqlc.narg('operation_id')::uuid)
      AND (sqlc.narg('operation')::text IS NULL OR coalesce(r.operation, e.operation) = sqlc.narg('operation')::text)
      AND (sqlc.narg('older_than')::interval IS NULL OR r.created_at <= now() - sqlc.narg('older_than')::interval)
      AND (sqlc.narg('link')::text IS NULL OR EXISTS (
          SELECT 1 FROM jsonb_array_elements_text(r.response_headers -> 'Location') AS l(v)
          WHERE l.v = sqlc.narg('link')::text OR right(l.v, length(sqlc.narg('link')::text) + 1) = '/' || sqlc.narg('link')::text))
) AS o
WHERE sqlc.narg('state')::text IS NULL OR o.state = sqlc.narg('state')::text
ORDER BY o.created_at, o.operation_id
LIMIT @max_rows::integer;
