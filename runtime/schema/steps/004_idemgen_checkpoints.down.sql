DELETE FROM idempotency_schema_version WHERE step = 4;
DELETE FROM idempotency_record WHERE state = 'in_progress';
ALTER TABLE idempotency_record
    DROP COLUMN IF EXISTS lease_until,
    DROP COLUMN IF EXISTS fencing_token,
    DROP COLUMN IF EXISTS checkpoint_state,
    DROP COLUMN IF EXISTS checkpoint;
