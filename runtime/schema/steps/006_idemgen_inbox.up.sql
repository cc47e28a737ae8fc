-- The inbox of the idempotent consumer: one row per message a consumer
-- has seen, keyed by the message's source (the sender, or the broker's
-- stream), the consumer's name and the message's own id (webhook-id, a
-- broker message id), never a hash of its body. A processed message's row
-- is written in the transaction of the handler's changes, so the two
-- commit together; a failed attempt only counts (its changes rolled back),
-- in a short transaction of its own.
--
-- state: processed (the handler's changes committed; a redelivery is
-- acknowledged without running it), failed (attempts spent below
-- max_attempts; the message is to be redelivered), dead (max_attempts
-- spent: acknowledged, kept with its body for support), retry (support
-- asked for one more attempt of a dead message; a failure makes it dead
-- again). fingerprint is the SHA-256 of the first body seen: the same id
-- with another body is refused. body is kept while the message is not
-- processed, for support's retry, and dropped once it is. expires_at is
-- the end of a processed row's retention (NULL otherwise: a failed or
-- dead message stays until it is processed or resolved).
CREATE TABLE IF NOT EXISTS idempotency_inbox (
    source       text        NOT NULL,
    consumer     text        NOT NULL,
    message_id   text        NOT NULL,
    operation_id uuid        NOT NULL,
    state        text        NOT NULL CONSTRAINT idempotency_inbox_state_check
        CHECK (state IN ('processed', 'failed', 'dead', 'retry')),
    fingerprint  bytea       NOT NULL,
    attempts     integer     NOT NULL,
    max_attempts integer     NOT NULL,
    last_error   text,
    body         bytea,
    received_at  timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    processed_at timestamptz,
    expires_at   timestamptz,
    PRIMARY KEY (source, consumer, message_id)
);

CREATE INDEX IF NOT EXISTS idempotency_inbox_expires_idx ON idempotency_inbox (expires_at)
    WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS idempotency_inbox_support_idx ON idempotency_inbox (consumer, updated_at)
    WHERE state IN ('dead', 'retry');

-- Support's audit of the inbox: one row per retry of a dead message a
-- person asked for, written in the transaction that makes it, never
-- without an actor and a reason.
CREATE TABLE IF NOT EXISTS idempotency_inbox_audit (
    id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source     text        NOT NULL,
    consumer   text        NOT NULL,
    message_id text        NOT NULL,
    actor      text        NOT NULL CONSTRAINT idempotency_inbox_audit_actor_check CHECK (btrim(actor) <> ''),
    reason     text        NOT NULL CONSTRAINT idempotency_inbox_audit_reason_check CHECK (btrim(reason) <> ''),
    from_state text        NOT NULL CONSTRAINT idempotency_inbox_audit_from_check CHECK (from_state = 'dead'),
    to_state   text        NOT NULL CONSTRAINT idempotency_inbox_audit_to_check CHECK (to_state = 'retry'),
    at         timestamptz NOT NULL
);

CREATE INDEX IF NOT EXISTS idempotency_inbox_audit_message_idx ON idempotency_inbox_audit (source, consumer, message_id);

INSERT INTO idempotency_schema_version (step) VALUES (6) ON CONFLICT (step) DO NOTHING;
