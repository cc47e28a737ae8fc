-- The same transaction with the NOTIFY a LISTENing worker would need.
-- Table: CREATE TABLE nq (id bigserial PRIMARY KEY, v text NOT NULL).
BEGIN;
INSERT INTO nq (v) VALUES ('x');
NOTIFY idem_effects;
COMMIT;
