-- The demo providers' record of every call (SchemaSQL), created by the
-- example at start. It stands for the providers' own databases, so it is
-- not among the service's migrations: a real service has no such table;
-- its mail service and warehouse keep their own record of the idempotency
-- keys they have seen. (Kept out of migrations/ also keeps goose's
-- version order to idemgen's generated steps.)

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
