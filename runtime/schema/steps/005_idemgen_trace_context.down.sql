DELETE FROM idempotency_schema_version WHERE step = 5;
ALTER TABLE idempotency_progress DROP COLUMN IF EXISTS trace_context;
ALTER TABLE idempotency_outbox DROP COLUMN IF EXISTS trace_context;
