-- name: SetClaimLockTimeout :exec
-- Bounds how long the claim waits for a concurrent holder of the same key
-- (SET LOCAL semantics), remembering the transaction's previous value.
SELECT set_config('idem.saved_lock_timeout', current_setting('lock_timeout'), true),
       set_config('lock_timeout', @lock_timeout::text, true);

-- name: RestoreLockTimeout :exec
-- Restores the lock_timeout that was in force before SetClaimLockTimeout,
-- so the business function's own lock waits are not cut short.
SELECT set_config('lock_timeout', current_setting('idem.saved_lock_timeout'), true);
