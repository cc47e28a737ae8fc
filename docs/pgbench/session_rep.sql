\set r random(1, 100000)
\startpipeline
SELECT r.operation_id, r.fingerprint, r.state, r.response_status, r.response_headers, r.response_body, r.completed_at, r.expires_at, CASE WHEN r.operation_id IS NULL THEN pg_advisory_lock(hashtext('tenant-a' || ('r-' || :r::text)))::text END AS locked FROM (SELECT set_config('lock_timeout', '5000ms', true) AS bounded) AS l LEFT JOIN idempotency_record AS r ON r.scope = 'tenant-a' AND r.idempotency_key = ('r-' || :r::text);
SELECT operation_id, fingerprint, state, response_status, response_headers, response_body, completed_at, expires_at FROM idempotency_record WHERE scope = 'tenant-a' AND idempotency_key = ('r-' || :r::text);
\endpipeline
