-- Recovery points: an attempt that checkpoints commits its record in
-- progress, before the operation is decided, with the point it reached and
-- the state the next step needs, under a lease and a fencing token.
--
-- lease_until is on the database's clock (now() when written): a retry
-- may take the operation over once it has passed, by bumping
-- fencing_token; every later write of the attempt that held the older
-- token (the next step's lease renewal, the final update) requires its
-- token and so does nothing. fencing_token is 0 on a record that never
-- checkpointed, and such a record is never seen in progress by another
-- transaction. The columns are nullable or have a constant default, which
-- PostgreSQL adds without rewriting the table.
ALTER TABLE idempotency_record
    ADD COLUMN IF NOT EXISTS checkpoint       text,
    ADD COLUMN IF NOT EXISTS checkpoint_state bytea,
    ADD COLUMN IF NOT EXISTS fencing_token    bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS lease_until      timestamptz;

INSERT INTO idempotency_schema_version (step) VALUES (4) ON CONFLICT (step) DO NOTHING;
