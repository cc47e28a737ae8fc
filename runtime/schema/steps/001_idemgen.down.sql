DROP TABLE IF EXISTS idempotency_natural_key;
DROP TABLE IF EXISTS idempotency_outbox;
DROP TABLE IF EXISTS idempotency_record;
