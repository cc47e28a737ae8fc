-- The schema's version: one row per step applied, written by the step's own
-- SQL, so the version is recorded whichever tool applies the migrations
-- (goose, golang-migrate, psql or schema.Migrate). The version is the
-- highest step. Step 1 (the schema of v0.1.0) predates this table: a schema
-- that holds step 1's tables and no row here is at version 1, so this step
-- records both. Every later step ends by inserting its own number.
CREATE TABLE IF NOT EXISTS idempotency_schema_version (
    step       integer     PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO idempotency_schema_version (step) VALUES (1), (2) ON CONFLICT (step) DO NOTHING;
