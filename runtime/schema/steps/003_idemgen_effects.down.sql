DELETE FROM idempotency_schema_version WHERE step = 3;
DROP TABLE IF EXISTS idempotency_effect_audit;
DROP TABLE IF EXISTS idempotency_effect_attempt;
UPDATE idempotency_outbox SET state = 'halted' WHERE state IN ('requires_recovery', 'dead');
ALTER TABLE idempotency_outbox DROP CONSTRAINT IF EXISTS idempotency_outbox_state_check;
ALTER TABLE idempotency_outbox ADD CONSTRAINT idempotency_outbox_state_check
    CHECK (state IN ('pending', 'done', 'failed', 'halted')) NOT VALID;
ALTER TABLE idempotency_outbox
    DROP COLUMN IF EXISTS updated_at,
    DROP COLUMN IF EXISTS last_error,
    DROP COLUMN IF EXISTS last_outcome,
    DROP COLUMN IF EXISTS leased_by,
    DROP COLUMN IF EXISTS lease_until,
    DROP COLUMN IF EXISTS fencing_token,
    DROP COLUMN IF EXISTS operation;
