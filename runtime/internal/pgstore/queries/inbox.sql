-- name: DeleteExpiredMessages :execrows
-- Deletes at most @batch_size processed messages of the inbox whose
-- retention ended, by the database's clock: a redelivery after that is a new
-- message. Failed and dead messages have no end (expires_at NULL) and
-- stay. Skips rows a delivery holds.
DELETE FROM idempotency_inbox
WHERE (source, consumer, message_id) IN (
    SELECT i.source, i.consumer, i.message_id
    FROM idempotency_inbox AS i
    WHERE i.expires_at < now()
    LIMIT @batch_size::integer
    FOR UPDATE SKIP LOCKED
);
