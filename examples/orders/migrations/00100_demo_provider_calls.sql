-- The example's own migration, beside idemgen's generated ones: the demo
-- providers' record of every call (examples/orders/providers). A real
-- service has no such table; its mail service and warehouse keep their own
-- record of the idempotency keys they have seen. The example applies the
-- Up section itself at start; goose applies it like the others.

-- +goose Up
CREATE TABLE IF NOT EXISTS provider_calls (
    id         bigserial   PRIMARY KEY,
    effect     text        NOT NULL,
    effect_key text        NOT NULL,
    order_id   text        NOT NULL,
    attempt    integer     NOT NULL,
    called_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- duplicate marks a call under a key the provider had already acted
    -- on: it acknowledged it and did nothing again.
    duplicate  boolean     NOT NULL
);

-- A provider acts once per effect key.
CREATE UNIQUE INDEX IF NOT EXISTS provider_calls_acted_once ON provider_calls (effect_key) WHERE NOT duplicate;

CREATE INDEX IF NOT EXISTS provider_calls_order ON provider_calls (order_id, effect);

-- +goose Down
DROP TABLE IF EXISTS provider_calls;
