-- name: EnqueueEffect :one
-- Appends an effect to its operation's outbox rows, numbering it after the
-- ones the operation already enqueued in this transaction. It is due at
-- once on the database's clock (a host whose clock runs ahead would hold
-- it back), and created then.
-- @trace_context is the request's, for the worker's span to link to (an
-- empty one is stored as NULL).
INSERT INTO idempotency_outbox (
    scope, operation_id, seq, effect, effect_key, on_unknown, payload, available_at, created_at, operation,
    trace_context
)
SELECT @scope::text, @operation_id::uuid, n.seq, @effect::text,
       concat(@operation_id::uuid, '/', @effect::text, '/', n.seq),
       @on_unknown::text, @payload::bytea, now(), now(),
       @operation::text, nullif(@trace_context::text, '')
FROM (
    SELECT (coalesce(max(o.seq), 0) + 1)::integer AS seq
    FROM idempotency_outbox AS o
    WHERE o.scope = @scope::text AND o.operation_id = @operation_id::uuid
) AS n
RETURNING effect_key;
