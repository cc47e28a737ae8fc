-- name: ClaimEffects :many
-- Claims up to @max_claims due effects of the names in @effects for worker
-- @worker, for @lease_seconds, scopes taking turns: the claim of a worker
-- that probes (see ClaimOldestEffects for the claims in between). The
-- lease moves available_at to its end (an effect whose worker dies
-- becomes due again then), bumps the fencing token and the attempt count,
-- marks an attempt whose lease ran out as lost and starts the new
-- attempt's history row, in one statement. The history numbers an attempt
-- by its fencing token, which counts every claim since the effect was
-- enqueued: support's retry resets the attempt count (the budget
-- MaxAttempts spends), not that number, so a retried call is told apart
-- from the first. Due times and leases are read and written on the
-- database's clock, never a worker's: a worker whose clock runs ahead
-- cannot take over an effect another worker still holds.
--
-- Scopes take turns: the candidates are the @max_claims oldest due
-- effects (the head) and a probe of the next @probe_window due effects
-- after @probe_after, the worker's cursor; each scope's oldest candidate
-- goes first, then each scope's second, and so on, and within a turn the
-- probe's rows go first, so that even a claim of one effect serves the
-- probe's scopes. Each candidate is locked (SKIP LOCKED) in that
-- order, only until @max_claims are. A small scope's effects enqueued
-- behind a large scope's backlog are thus claimed once the probe reaches
-- them, not after the backlog.
--
-- next_at is the next cursor, and next_inclusive whether effects due at
-- exactly next_at are still to be read (effects enqueued in one
-- transaction share their due time): the first effect claimed of a
-- scope the head does not hold (inclusive), so that the probe reads on
-- from what it took; with none, @probe_after again while the probe holds
-- a scope the head does not (it waits for its turn); else the probe's
-- last due time when the probe was full, so that it moves on by a
-- window; else -infinity, so that it starts over. due_at is each
-- effect's due time before the claim, which ReleaseEffects restores. Both reads are index scans of the pending index
-- that stop at their limits: a claim costs O(@max_claims +
-- @probe_window) however long the backlog.
WITH head AS (
    SELECT scope, operation_id, seq, available_at FROM idempotency_outbox
    WHERE state = 'pending' AND available_at <= now() AND effect = ANY (@effects::text[])
    ORDER BY available_at
    LIMIT @max_claims::integer
), probe AS (
    SELECT scope, operation_id, seq, available_at FROM idempotency_outbox
    WHERE state = 'pending' AND available_at <= now() AND effect = ANY (@effects::text[])
      AND available_at > @probe_after::timestamptz
    ORDER BY available_at
    LIMIT @probe_window::integer
), beyond AS (
    SELECT * FROM probe AS p
    WHERE NOT EXISTS (SELECT FROM head AS h WHERE h.scope = p.scope AND h.operation_id = p.operation_id AND h.seq = p.seq)
), turns AS (
    SELECT scope, operation_id, seq, available_at, from_probe,
           row_number() OVER (PARTITION BY scope ORDER BY available_at, from_probe, operation_id, seq) AS turn
    FROM (SELECT *, false AS from_probe FROM head UNION ALL SELECT *, true FROM beyond) AS candidates
    ORDER BY turn, NOT from_probe, available_at
), due AS (
    SELECT d.scope, d.operation_id, d.seq, t.available_at AS due_at, t.from_probe
    FROM turns AS t CROSS JOIN LATERAL (
        SELECT o.scope, o.operation_id, o.seq FROM idempotency_outbox AS o
        WHERE o.scope = t.scope AND o.operation_id = t.operation_id AND o.seq = t.seq
          AND o.state = 'pending' AND o.available_at <= now()
        FOR UPDATE SKIP LOCKED
    ) AS d
    LIMIT @max_claims::integer
), next AS (
    SELECT at, inclusive FROM (
        SELECT min(due_at) AS at, true AS inclusive, 1 AS rule FROM due
        WHERE NOT EXISTS (SELECT FROM head AS h WHERE h.scope = due.scope) HAVING count(*) > 0
        UNION ALL
        SELECT @probe_after::timestamptz, false, 2
        WHERE EXISTS (SELECT FROM beyond AS b WHERE NOT EXISTS (SELECT FROM head AS h WHERE h.scope = b.scope))
        UNION ALL
        SELECT max(available_at), false, 3 FROM probe HAVING count(*) = @probe_window::integer
        UNION ALL
        SELECT '-infinity'::timestamptz, false, 4
    ) AS rules
    ORDER BY rule LIMIT 1
), claimed AS (
    UPDATE idempotency_outbox AS o
    SET available_at = now() + make_interval(secs => @lease_seconds::float8),
        lease_until = now() + make_interval(secs => @lease_seconds::float8),
        leased_by = @worker::text, updated_at = now(),
        fencing_token = o.fencing_token + 1, attempts = o.attempts + 1,
        last_outcome = CASE WHEN o.lease_until IS NOT NULL THEN 'lost' ELSE o.last_outcome END
    FROM due
    WHERE o.scope = due.scope AND o.operation_id = due.operation_id AND o.seq = due.seq
    RETURNING o.scope, o.operation_id, o.seq, coalesce(o.operation, '') AS operation, o.effect, o.effect_key,
              o.on_unknown, o.payload, o.attempts, o.fencing_token, coalesce(o.last_outcome, '') AS last_outcome,
              coalesce(o.trace_context, '') AS trace_context, due.due_at
), lost AS (
    UPDATE idempotency_effect_attempt AS t SET outcome = 'lost', finished_at = now()
    FROM claimed AS c
    WHERE t.scope = c.scope AND t.operation_id = c.operation_id AND t.seq = c.seq
      AND t.fencing_token < c.fencing_token AND t.outcome IS NULL
), started AS (
    INSERT INTO idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, started_at)
    SELECT c.scope, c.operation_id, c.seq, c.fencing_token, c.fencing_token, @worker::text, now()
    FROM claimed AS c
)
SELECT c.scope, c.operation_id, c.seq, c.operation, c.effect, c.effect_key, c.on_unknown, c.payload, c.attempts,
       c.fencing_token, c.last_outcome, c.trace_context, c.due_at, next.at::timestamptz AS next_at, next.inclusive::boolean AS next_inclusive
FROM claimed AS c, next;

-- name: ClaimOldestEffects :many
-- Claims up to @max_claims of the oldest due effects of the names in
-- @effects for worker @worker, for @lease_seconds, first in first out, as
-- ClaimEffects does without its probe: the claims of a worker between two
-- that probe, and instead of one that would probe an outbox of a single
-- scope. Planned and run it costs about three quarters of what
-- ClaimEffects costs with no probe's rows to read, and under half of what
-- it costs with them (docs/benchmarks.md, "The probe paid only where it
-- can help").
--
-- other_scopes tells whether the probe might find a scope this claim did
-- not take: it did take more than one, or the outbox holds a row of
-- another scope, in any state (two index-only descents of the primary
-- key, whatever the outbox's size). False means every effect in the
-- outbox is of the one scope claimed, which no probe could serve sooner;
-- an effect of another scope committed later is due after checked_at
-- (the statement's now()) unless its transaction began before that, so
-- a probe that resumes reads on from a little before checked_at (the
-- worker's resumeBefore). due_at is each effect's due time before the
-- claim, which ReleaseEffects restores.
WITH due AS (
    SELECT scope, operation_id, seq, available_at FROM idempotency_outbox
    WHERE state = 'pending' AND available_at <= now() AND effect = ANY (@effects::text[])
    ORDER BY available_at
    LIMIT @max_claims::integer
    FOR UPDATE SKIP LOCKED
), claimed AS (
    UPDATE idempotency_outbox AS o
    SET available_at = now() + make_interval(secs => @lease_seconds::float8),
        lease_until = now() + make_interval(secs => @lease_seconds::float8),
        leased_by = @worker::text, updated_at = now(),
        fencing_token = o.fencing_token + 1, attempts = o.attempts + 1,
        last_outcome = CASE WHEN o.lease_until IS NOT NULL THEN 'lost' ELSE o.last_outcome END
    FROM due
    WHERE o.scope = due.scope AND o.operation_id = due.operation_id AND o.seq = due.seq
    RETURNING o.scope, o.operation_id, o.seq, coalesce(o.operation, '') AS operation, o.effect, o.effect_key,
              o.on_unknown, o.payload, o.attempts, o.fencing_token, coalesce(o.last_outcome, '') AS last_outcome,
              coalesce(o.trace_context, '') AS trace_context, due.available_at AS due_at
), lost AS (
    UPDATE idempotency_effect_attempt AS t SET outcome = 'lost', finished_at = now()
    FROM claimed AS c
    WHERE t.scope = c.scope AND t.operation_id = c.operation_id AND t.seq = c.seq
      AND t.fencing_token < c.fencing_token AND t.outcome IS NULL
), started AS (
    INSERT INTO idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, started_at)
    SELECT c.scope, c.operation_id, c.seq, c.fencing_token, c.fencing_token, @worker::text, now()
    FROM claimed AS c
), span AS MATERIALIZED (
    SELECT s.low <> s.high
        OR (SELECT o.scope FROM idempotency_outbox AS o WHERE o.scope < s.low ORDER BY o.scope DESC LIMIT 1) IS NOT NULL
        OR (SELECT o.scope FROM idempotency_outbox AS o WHERE o.scope > s.high ORDER BY o.scope LIMIT 1) IS NOT NULL AS others
    FROM (SELECT min(scope) AS low, max(scope) AS high FROM due) AS s
)
SELECT c.scope, c.operation_id, c.seq, c.operation, c.effect, c.effect_key, c.on_unknown, c.payload, c.attempts,
       c.fencing_token, c.last_outcome, c.trace_context, c.due_at, span.others::boolean AS other_scopes,
       now()::timestamptz AS checked_at
FROM claimed AS c, span;

-- name: RecordOutcomes :many
-- Records the outcomes of many attempts in one statement. Element i of
-- each array belongs to one attempt: the effect's new state, the seconds
-- until it is due again (@delays, counted on the database's clock),
-- outcome and error (an empty error is none), and the attempt row's kind,
-- outcome, error and end (@finished_ats, the worker's reading, also the
-- effect's updated_at).
-- Each row is recorded only while its effect is still leased under that
-- attempt's fencing token: a row whose lease another worker took over is
-- left as that worker wrote it. It returns the rows it recorded, by key
-- and token. pgstore's BoundLockWaits, before it in the same round trip
-- and implicit transaction, bounds its lock waits, a lock on the outbox
-- or attempt table included.
WITH batch AS (
    SELECT unnest(@scopes::text[]) AS scope, unnest(@operation_ids::uuid[]) AS operation_id,
           unnest(@seqs::integer[]) AS seq, unnest(@fencing_tokens::bigint[]) AS fencing_token,
           unnest(@states::text[]) AS state, unnest(@delays::float8[]) AS delay,
           unnest(@outcomes::text[]) AS outcome, unnest(@errors::text[]) AS error,
           unnest(@kinds::text[]) AS kind, unnest(@finished_ats::timestamptz[]) AS finished_at
), o AS (
    UPDATE idempotency_outbox AS e
    SET state = b.state, available_at = now() + make_interval(secs => b.delay), lease_until = NULL,
        last_outcome = b.outcome, last_error = nullif(b.error, ''), updated_at = b.finished_at
    FROM batch AS b
    WHERE e.scope = b.scope AND e.operation_id = b.operation_id AND e.seq = b.seq
      AND e.fencing_token = b.fencing_token
      AND e.state = 'pending' AND e.lease_until IS NOT NULL
    RETURNING e.scope, e.operation_id, e.seq, e.fencing_token
), a AS (
    UPDATE idempotency_effect_attempt AS t
    SET finished_at = b.finished_at, outcome = b.outcome, error = nullif(b.error, ''), kind = b.kind
    FROM o JOIN batch AS b
        ON b.scope = o.scope AND b.operation_id = o.operation_id AND b.seq = o.seq AND b.fencing_token = o.fencing_token
    WHERE t.scope = o.scope AND t.operation_id = o.operation_id AND t.seq = o.seq AND t.fencing_token = o.fencing_token
)
SELECT scope, operation_id, seq, fencing_token FROM o;

-- name: ReleaseEffects :many
-- Hands back effects this worker claimed ahead of its free call slots and
-- did not call (one waited too long for a slot, or the worker stopped):
-- each becomes due again at @due_ats, its due time before the claim, so
-- it keeps its place, with its lease ended and the attempt count the
-- claim spent given back (no call was made). The claim's history row is
-- kept, ended as released, of kind none. As RecordOutcomes does, it
-- touches a row only while it is still leased under the claim's fencing
-- token, and returns the rows it released.
WITH batch AS (
    SELECT unnest(@scopes::text[]) AS scope, unnest(@operation_ids::uuid[]) AS operation_id,
           unnest(@seqs::integer[]) AS seq, unnest(@fencing_tokens::bigint[]) AS fencing_token,
           unnest(@due_ats::timestamptz[]) AS due_at
), o AS (
    UPDATE idempotency_outbox AS e
    SET available_at = b.due_at, lease_until = NULL, attempts = e.attempts - 1, updated_at = now()
    FROM batch AS b
    WHERE e.scope = b.scope AND e.operation_id = b.operation_id AND e.seq = b.seq
      AND e.fencing_token = b.fencing_token
      AND e.state = 'pending' AND e.lease_until IS NOT NULL
    RETURNING e.scope, e.operation_id, e.seq, e.fencing_token
), a AS (
    UPDATE idempotency_effect_attempt AS t SET outcome = 'released', kind = 'none', finished_at = now()
    FROM o
    WHERE t.scope = o.scope AND t.operation_id = o.operation_id AND t.seq = o.seq AND t.fencing_token = o.fencing_token
)
SELECT scope, operation_id, seq, fencing_token FROM o;

-- name: OldestDueAge :one
-- Reads how many seconds ago, on the database's clock, the oldest due
-- effect became due (0 when none is due).
SELECT coalesce(extract(epoch FROM now() - min(available_at)), 0)::float8 AS age_seconds FROM idempotency_outbox
WHERE state = 'pending' AND available_at <= now();
