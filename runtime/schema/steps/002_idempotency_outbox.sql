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
