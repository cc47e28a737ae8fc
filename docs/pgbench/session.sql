\set k random(1, 9000000000000000000)
\set cid random(1, 100000)
\startpipeline
SELECT r.operation_id, r.fingerprint, r.state, r.response_status, r.response_headers, r.response_body, r.completed_at, r.expires_at, CASE WHEN r.operation_id IS NULL THEN pg_advisory_lock(hashtext('tenant-a' || :k::text))::text END AS locked FROM (SELECT set_config('lock_timeout', '5000ms', true) AS bounded) AS l LEFT JOIN idempotency_record AS r ON r.scope = 'tenant-a' AND r.idempotency_key = :k::text;
SELECT operation_id, fingerprint, state, response_status, response_headers, response_body, completed_at, expires_at FROM idempotency_record WHERE scope = 'tenant-a' AND idempotency_key = :k::text;
\endpipeline
\startpipeline
BEGIN;
INSERT INTO orders (tenant, customer, amount) VALUES ('tenant-a', 'c-' || :cid::text, 1200) RETURNING id;
\endpipeline
INSERT INTO order_items (order_id, line, sku, quantity, unit_price) VALUES (currval('orders_id_seq'), 1, 'sku-a', 1, 600), (currval('orders_id_seq'), 2, 'sku-b', 1, 600);
\startpipeline
INSERT INTO idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, response_status, response_headers, response_body, created_at, completed_at, expires_at, purge_at)
VALUES ('tenant-a', :k::text, '\x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'::bytea, 'completed', md5(:k::text)::uuid, 201, ('{"Content-Type":["application/json"],"Location":["/orders/' || currval('orders_id_seq')::text || '"]}')::jsonb, convert_to('{"amount":1200,"customer":"c-' || :cid::text || '","order_id":' || currval('orders_id_seq')::text || '}', 'UTF8'), now(), now(), now() + interval '24 hours', now() + interval '744 hours');
COMMIT;
SELECT pg_advisory_unlock(hashtext('tenant-a' || :k::text));
\endpipeline
