-- name: GetStatus :one
-- The status route's one statement under the advisory protocol: the
-- committed record of @operation under (scope, key) and, when there is
-- none (the protocol's running attempt writes no row before its COMMIT),
-- whether another transaction holds the key's advisory lock: the
-- try takes the lock only when it is free, and the statement's implicit
-- transaction releases it at once. An unknown key and another scope's key
-- do the same work: one primary-key probe that finds nothing under this
-- scope and one try of a lock no one holds (another scope's attempt holds
-- the hash of its own scope). A record of another operation under the
-- key is not this operation's attempt: it reads as no record. read_at is
-- the database's clock, which decides expiry as it does for a retry.
SELECT r.operation_id, r.state, r.response_status, r.response_headers, r.response_body, r.expires_at,
       statement_timestamp()::timestamptz AS read_at,
       (CASE WHEN r.operation_id IS NULL
             THEN NOT pg_try_advisory_xact_lock(@lock_key::bigint)
             ELSE false END)::boolean AS locked
FROM (SELECT 1 AS one) AS k
LEFT JOIN idempotency_record AS r
       ON r.scope = @scope::text AND r.idempotency_key = @idempotency_key::text AND r.operation = @operation::text;

-- name: GetStatusRecord :one
-- GetStatus without the lock probe, the statement LookUp sends when it
-- does not probe (the claim-first protocol): it names no advisory-lock
-- function, so an engine that has none can plan it (docs/scale-out.md).
SELECT r.operation_id, r.state, r.response_status, r.response_headers, r.response_body, r.expires_at,
       statement_timestamp()::timestamptz AS read_at
FROM (SELECT 1 AS one) AS k
LEFT JOIN idempotency_record AS r
       ON r.scope = @scope::text AND r.idempotency_key = @idempotency_key::text AND r.operation = @operation::text;
