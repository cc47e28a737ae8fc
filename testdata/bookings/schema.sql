-- The hotel's own tables (the idempotency tables come from idemgen's
-- migration). A tenant is a hotel; its rooms and bookings are its own.
CREATE TABLE IF NOT EXISTS rooms (
    tenant   text   NOT NULL,
    id       text   NOT NULL,
    capacity bigint NOT NULL CHECK (capacity > 0),
    PRIMARY KEY (tenant, id)
);

-- A booking holds a room from check_in up to (not including) check_out.
-- The service refuses overlapping bookings of a room while it holds the
-- room's row lock; the unique constraint is the contract's natural key
-- (room, first night), which no overlap check can bypass.
CREATE TABLE IF NOT EXISTS bookings (
    id            uuid        PRIMARY KEY,
    tenant        text        NOT NULL,
    room_id       text        NOT NULL,
    guest_name    text        NOT NULL,
    guest_email   text        NOT NULL,
    guest_phone   text,
    check_in      date        NOT NULL,
    check_out     date        NOT NULL,
    guests        bigint      NOT NULL CHECK (guests > 0),
    status        text        NOT NULL DEFAULT 'booked',
    id_document   text,
    key_cards     bigint,
    checked_in_at timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (check_out > check_in),
    FOREIGN KEY (tenant, room_id) REFERENCES rooms (tenant, id),
    UNIQUE (tenant, room_id, check_in)
);
