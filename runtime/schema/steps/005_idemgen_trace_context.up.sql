-- The trace context of the request that caused an effect or a step, as a
-- W3C traceparent (NULL without tracing), so that the span of the worker
-- that executes the effect, or of the completer that resumes the
-- operation, links back to that request. Nullable columns without a
-- default: adding them rewrites no table.
ALTER TABLE idempotency_outbox ADD COLUMN IF NOT EXISTS trace_context text;
ALTER TABLE idempotency_progress ADD COLUMN IF NOT EXISTS trace_context text;

INSERT INTO idempotency_schema_version (step) VALUES (5) ON CONFLICT (step) DO NOTHING;
