DELETE FROM idempotency_schema_version WHERE step = 4;
DROP TABLE IF EXISTS idempotency_operation_audit;
DROP TABLE IF EXISTS idempotency_progress;
DELETE FROM idempotency_record WHERE state = 'in_progress';
ALTER TABLE idempotency_record DROP COLUMN IF EXISTS operation;
