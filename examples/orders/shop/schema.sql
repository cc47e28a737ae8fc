-- The shop's own tables (the idempotency tables come from idemgen's
-- migration). Orders are unique per tenant on their natural key, the
-- shop's own order number.
CREATE TABLE IF NOT EXISTS orders (
    id                uuid        PRIMARY KEY,
    tenant            text        NOT NULL,
    shop_id           text        NOT NULL,
    external_order_id text        NOT NULL,
    customer_id       text        NOT NULL,
    delivery          jsonb       NOT NULL,
    status            text        NOT NULL DEFAULT 'pending',
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant, shop_id, external_order_id)
);

CREATE TABLE IF NOT EXISTS order_items (
    order_id uuid    NOT NULL REFERENCES orders (id),
    sku      text    NOT NULL,
    quantity bigint  NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (order_id, sku)
);

-- Stock per SKU; an order takes its items out of stock or is refused.
CREATE TABLE IF NOT EXISTS stock (
    sku       text   PRIMARY KEY,
    available bigint NOT NULL CHECK (available >= 0)
);

INSERT INTO stock (sku, available) VALUES ('SKU-1', 1000000), ('SKU-2', 1000000), ('SKU-3', 5)
ON CONFLICT (sku) DO NOTHING;
