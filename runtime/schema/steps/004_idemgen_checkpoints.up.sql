-- Operations that commit recovery points before they are decided (phased
-- operations, and any adapter whose attempt checkpoints).
--
-- idempotency_record.operation names the operation of every record
-- written from this step on (support shows it; the completer picks the
-- code that resumes an operation by it). Nullable, so PostgreSQL adds it
-- without rewriting the table; records of earlier versions keep NULL.
--
-- idempotency_progress holds one row per operation in progress after a
-- checkpoint, beside its record (state in_progress, or requires_recovery
-- once an unknown outcome halted it): the last recovery point and its
-- state, the request the completer re-drives it from, and the lease under
-- which one attempt holds it. lease_until is on the database's clock
-- (now() when written): once it has passed, a retry or the completer may
-- take the operation over by bumping fencing_token, and every later write
-- of the attempt that held the older token (the next step's lease renewal,
-- the final update) requires its token and so does nothing. resumed_by
-- names the person who resumed a halted operation (idemgen ops resume),
-- until its next recovery point: the attempt that takes it over then makes
-- the call whose outcome was unknown again, instead of halting again. The
-- row is deleted in the transaction that decides the operation. Keeping it apart
-- from the record keeps the hot record table narrow, and the completer's
-- scan by lease_until an index scan of a table that holds only what is in
-- flight, built here while it is empty.
ALTER TABLE idempotency_record ADD COLUMN IF NOT EXISTS operation text;

CREATE TABLE IF NOT EXISTS idempotency_progress (
    scope            text        NOT NULL,
    idempotency_key  text        NOT NULL,
    operation        text        NOT NULL,
    operation_id     uuid        NOT NULL,
    fencing_token    bigint      NOT NULL,
    lease_until      timestamptz NOT NULL,
    checkpoint       text        NOT NULL,
    checkpoint_state bytea,
    request          bytea,
    resumed_by       text,
    updated_at       timestamptz NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);

CREATE INDEX IF NOT EXISTS idempotency_progress_lease_until_idx ON idempotency_progress (lease_until);

-- Support's audit trail for operations: one row per state change a person
-- made (resume, or a resolution to completed or failed), written in the
-- transaction that makes it, never without an actor and a reason.
CREATE TABLE IF NOT EXISTS idempotency_operation_audit (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    scope        text        NOT NULL,
    operation_id uuid        NOT NULL,
    actor        text        NOT NULL CONSTRAINT idempotency_operation_audit_actor_check CHECK (btrim(actor) <> ''),
    reason       text        NOT NULL CONSTRAINT idempotency_operation_audit_reason_check CHECK (btrim(reason) <> ''),
    from_state   text        NOT NULL,
    to_state     text        NOT NULL CONSTRAINT idempotency_operation_audit_to_check
        CHECK (to_state IN ('in_progress', 'completed', 'failed')),
    at           timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS idempotency_operation_audit_operation_idx ON idempotency_operation_audit (scope, operation_id);

INSERT INTO idempotency_schema_version (step) VALUES (4) ON CONFLICT (step) DO NOTHING;
