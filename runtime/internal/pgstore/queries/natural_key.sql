-- name: ClaimNaturalKey :one
-- Claims an entity's natural key for an operation; no row when another
-- committed operation holds it (a concurrent claim waits for the holder's
-- transaction to end).
INSERT INTO idempotency_natural_key (scope, operation, natural_key, operation_id, created_at)
VALUES (@scope::text, @operation::text, @natural_key::text, @operation_id::uuid, now())
ON CONFLICT (scope, operation, natural_key) DO NOTHING
RETURNING operation_id;

-- name: GetNaturalKeyHolder :one
-- The operation that holds an entity's natural key.
SELECT operation_id::text
FROM idempotency_natural_key
WHERE scope = @scope::text AND operation = @operation::text AND natural_key = @natural_key::text;

-- name: DeleteNaturalKeysPastLifetime :execrows
-- Deletes at most @batch_size natural-key rows claimed more than
-- @lifetime_seconds ago on the database's clock, the end of their
-- lifetime; skips rows another transaction holds.
DELETE FROM idempotency_natural_key
WHERE (scope, operation, natural_key) IN (
    SELECT n.scope, n.operation, n.natural_key
    FROM idempotency_natural_key AS n
    WHERE n.created_at <= now() - make_interval(secs => @lifetime_seconds::float8)
    LIMIT @batch_size::integer
    FOR UPDATE SKIP LOCKED
);
