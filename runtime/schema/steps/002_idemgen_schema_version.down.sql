DROP TABLE IF EXISTS idempotency_schema_version;
