-- One row per idempotent operation, keyed by (scope, idempotency_key) with
-- the scope leading so the table can be distributed by scope (Citus) or run
-- on CockroachDB/YugabyteDB unchanged.
--
-- state: in_progress is never visible committed in atomic mode (claim and
-- completion share one transaction); completed and failed carry the stored
-- response; a tombstone keeps only the fingerprint and the operation id
-- after retention, so a late retry is answered operation-expired and never
-- re-run. The column has no CHECK constraint: PostgreSQL reads and plans a
-- table's CHECK constraints afresh for every INSERT and UPDATE statement,
-- and on this table, written twice by every new operation, that cost 8-11 %
-- of the operation (docs/benchmarks.md). The store's queries are the only
-- writers and keep the states closed instead: the claim and the sweeper
-- write literals, and CompleteRecord updates nothing unless the state is
-- completed or failed.
--
-- expires_at is when the sweeper must next act on the row: the end of
-- retention for a live record; the sweeper moves it to purge_at when it
-- makes the record a tombstone. One index then serves both sweeps, and the
-- completion UPDATE touches no indexed column, so it can be a HOT update.
CREATE TABLE IF NOT EXISTS idempotency_record (
    scope            text        NOT NULL,
    idempotency_key  text        NOT NULL,
    fingerprint      bytea       NOT NULL,
    state            text        NOT NULL,
    operation_id     uuid        NOT NULL,
    response_status  integer,
    response_headers jsonb,
    response_body    bytea,
    created_at       timestamptz NOT NULL,
    completed_at     timestamptz,
    expires_at       timestamptz NOT NULL,
    purge_at         timestamptz NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);

CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
-- The outbox: one row per side effect an operation enqueued, written in the
-- business transaction so an effect exists exactly when its operation
-- committed. A worker executes pending rows later. The key leads with the
-- scope, like the record's. effect_key (operation id, effect name and the
-- effect's sequence number in its operation) is stable across retries and
-- is what the effect handler passes on to the provider as its own
-- idempotency key.
CREATE TABLE IF NOT EXISTS idempotency_outbox (
    scope        text        NOT NULL,
    operation_id uuid        NOT NULL,
    seq          integer     NOT NULL,
    effect       text        NOT NULL,
    effect_key   text        NOT NULL,
    on_unknown   text        NOT NULL
        CONSTRAINT idempotency_outbox_on_unknown_check
        CHECK (on_unknown IN ('retry', 'verify', 'halt')),
    payload      bytea,
    state        text        NOT NULL DEFAULT 'pending'
        CONSTRAINT idempotency_outbox_state_check
        CHECK (state IN ('pending', 'done', 'failed', 'halted')),
    attempts     integer     NOT NULL DEFAULT 0,
    available_at timestamptz NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (scope, operation_id, seq)
);

CREATE INDEX IF NOT EXISTS idempotency_outbox_pending_idx ON idempotency_outbox (available_at) WHERE state = 'pending';
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
