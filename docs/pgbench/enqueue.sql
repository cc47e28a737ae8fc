-- An enqueuing transaction without NOTIFY: one row, committed alone.
-- Table: CREATE TABLE nq (id bigserial PRIMARY KEY, v text NOT NULL).
BEGIN;
INSERT INTO nq (v) VALUES ('x');
COMMIT;
