-- Natural keys: an operation whose contract declares natural-key fields
-- claims the entity's key here in its own transaction, so two requests for
-- one entity under different idempotency keys cannot both create it. The
-- primary key is the unique constraint; a concurrent claim waits on it like
-- the record's claim does. natural_key is the canonical JSON of the
-- declared fields' values.
CREATE TABLE IF NOT EXISTS idempotency_natural_key (
    scope        text        NOT NULL,
    operation    text        NOT NULL,
    natural_key  text        NOT NULL,
    operation_id uuid        NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (scope, operation, natural_key)
);
