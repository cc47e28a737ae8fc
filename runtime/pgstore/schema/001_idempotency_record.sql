-- One row per idempotent operation, keyed by (scope, idempotency_key) with
-- the scope leading so the table can be distributed by scope (Citus) or run
-- on CockroachDB/YugabyteDB unchanged.
--
-- state: in_progress is never visible committed in atomic mode (claim and
-- completion share one transaction); completed and failed carry the stored
-- response; a tombstone keeps only the fingerprint and the operation id
-- after retention, so a late retry is answered operation-expired and never
-- re-run.
--
-- expires_at is when the sweeper must next act on the row: the end of
-- retention for a live record; the sweeper moves it to purge_at when it
-- makes the record a tombstone. One index then serves both sweeps, and the
-- completion UPDATE touches no indexed column, so it can be a HOT update.
CREATE TABLE IF NOT EXISTS idempotency_record (
    scope            text        NOT NULL,
    idempotency_key  text        NOT NULL,
    fingerprint      bytea       NOT NULL,
    state            text        NOT NULL
        CONSTRAINT idempotency_record_state_check
        CHECK (state IN ('in_progress', 'completed', 'failed', 'requires_recovery', 'tombstone')),
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
