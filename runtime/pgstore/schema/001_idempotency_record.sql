-- One row per idempotent operation, keyed by (scope, idempotency_key) with
-- the scope leading so the table can be distributed by scope (Citus) or run
-- on CockroachDB/YugabyteDB unchanged.
--
-- state: in_progress is never visible committed in atomic mode (claim and
-- completion share one transaction); completed and failed carry the stored
-- response; tombstone keeps only the fingerprint and purge_at after
-- retention so a late retry is answered operation-expired, never re-run.
-- expires_at is NULL on a tombstone so the retention sweep's index range
-- holds only live records.
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
    expires_at       timestamptz,
    purge_at         timestamptz NOT NULL,
    PRIMARY KEY (scope, idempotency_key)
);

CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
CREATE INDEX IF NOT EXISTS idempotency_record_purge_at_idx ON idempotency_record (purge_at);
