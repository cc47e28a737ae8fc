DELETE FROM idempotency_schema_version WHERE step = 6;
DROP TABLE IF EXISTS idempotency_inbox_audit;
DROP TABLE IF EXISTS idempotency_inbox;
