-- The effects worker's columns and tables. A worker claims a due effect
-- (state pending, available_at reached) with FOR UPDATE SKIP LOCKED, takes
-- a lease by moving available_at to the lease's end and setting
-- lease_until, and bumps fencing_token: the UPDATE that records the
-- outcome requires the token the claim returned, so a worker whose lease
-- ran out and was taken over records nothing. A lease that ends without an
-- outcome makes the effect due again (available_at is the lease's end), so
-- the existing partial index on available_at serves both due and
-- abandoned effects and this step builds no index on the outbox.
--
-- state: pending (due at available_at; running while lease_until is set),
-- done, failed (the provider said it failed for good, or support resolved
-- it so), requires_recovery (the halt policy met an unknown outcome), dead
-- (max attempts spent). Only support moves an effect out of
-- requires_recovery or dead, and writes an audit row when it does. The new
-- CHECK is NOT VALID: the old one admitted a subset of these states plus
-- halted, which nothing ever wrote, so existing rows need no scan under
-- the table lock. The new columns have constant defaults or none, which
-- PostgreSQL adds without rewriting the table.
ALTER TABLE idempotency_outbox
    ADD COLUMN IF NOT EXISTS operation     text,
    ADD COLUMN IF NOT EXISTS fencing_token bigint NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS lease_until   timestamptz,
    ADD COLUMN IF NOT EXISTS leased_by     text,
    ADD COLUMN IF NOT EXISTS last_outcome  text,
    ADD COLUMN IF NOT EXISTS last_error    text,
    ADD COLUMN IF NOT EXISTS updated_at    timestamptz;

ALTER TABLE idempotency_outbox DROP CONSTRAINT IF EXISTS idempotency_outbox_state_check;
ALTER TABLE idempotency_outbox ADD CONSTRAINT idempotency_outbox_state_check
    CHECK (state IN ('pending', 'done', 'failed', 'requires_recovery', 'dead')) NOT VALID;

-- One row per attempt: a claim of the effect under one fencing token.
-- kind is call (the provider's Do) or verify (its Verify, before a repeat
-- after an unknown outcome); outcome stays NULL while the attempt runs and
-- becomes lost when the next claim finds its lease ran out.
CREATE TABLE IF NOT EXISTS idempotency_effect_attempt (
    scope         text        NOT NULL,
    operation_id  uuid        NOT NULL,
    seq           integer     NOT NULL,
    fencing_token bigint      NOT NULL,
    attempt       integer     NOT NULL,
    worker        text        NOT NULL,
    kind          text,
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    outcome       text,
    error         text,
    PRIMARY KEY (scope, operation_id, seq, fencing_token)
);

-- Support's audit trail: one row per state change a person made, written
-- in the transaction that makes it. The CHECKs keep the support path to
-- the state model: only an effect in requires_recovery or dead is
-- resolved, to done, failed or pending (retry), and never without an actor
-- and a reason.
CREATE TABLE IF NOT EXISTS idempotency_effect_audit (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope        text        NOT NULL,
    operation_id uuid        NOT NULL,
    seq          integer     NOT NULL,
    actor        text        NOT NULL CONSTRAINT idempotency_effect_audit_actor_check CHECK (btrim(actor) <> ''),
    reason       text        NOT NULL CONSTRAINT idempotency_effect_audit_reason_check CHECK (btrim(reason) <> ''),
    from_state   text        NOT NULL CONSTRAINT idempotency_effect_audit_from_check
        CHECK (from_state IN ('requires_recovery', 'dead')),
    to_state     text        NOT NULL CONSTRAINT idempotency_effect_audit_to_check
        CHECK (to_state IN ('done', 'failed', 'pending')),
    at           timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS idempotency_effect_audit_effect_idx ON idempotency_effect_audit (scope, operation_id, seq);

INSERT INTO idempotency_schema_version (step) VALUES (3) ON CONFLICT (step) DO NOTHING;
