//go:build long

package outbox_test

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

const manyEffects = 1000

// allDone waits for every effect to be done, then checks that the provider
// carried each out once and under its one key.
func allDone(t *testing.T, pool *pgxpool.Pool, within time.Duration) {
	t.Helper()
	waitFor(t, "every effect done", within, func() bool {
		return count(t, pool, `SELECT count(*) FROM idempotency_outbox WHERE state = 'done'`) == manyEffects
	})
	if n := count(t, pool, `SELECT count(*) FROM provider_done`); n != manyEffects {
		t.Errorf("the provider carried out %d effects, want %d", n, manyEffects)
	}
	// Each effect reached the provider under one key only: its own.
	if n := count(t, pool, `SELECT count(*) FROM provider_calls c
LEFT JOIN idempotency_outbox o ON o.effect_key = c.effect_key WHERE o.effect_key IS NULL`); n != 0 {
		t.Errorf("%d provider calls under a key no effect has", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM (SELECT operation_id, seq FROM idempotency_outbox o
JOIN provider_calls c USING (effect_key) GROUP BY operation_id, seq HAVING count(DISTINCT c.effect_key) > 1) x`); n != 0 {
		t.Errorf("%d effects executed under two different keys", n)
	}
}

func TestTwoWorkerProcessesExecuteEachEffectOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 effects through two processes")
	}
	cs, pool := newDB(t)
	enqueue(t, pool, manyEffects, "retry")
	a := startWorker(t, cs, "work", "a", 30*time.Second)
	b := startWorker(t, cs, "work", "b", 30*time.Second)
	allDone(t, pool, time.Minute)
	a.kill()
	b.kill()
	if n := count(t, pool, `SELECT count(*) FROM provider_calls`); n != manyEffects {
		t.Errorf("the provider got %d calls for %d effects, want exactly one each", n, manyEffects)
	}
	if n := count(t, pool, `SELECT count(DISTINCT worker) FROM provider_calls`); n != 2 {
		t.Logf("only %d of the two workers made calls", n)
	}
}

func TestWorkerProcessesKilledAtRandomLeaveEveryEffectDone(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 effects through workers killed and restarted")
	}
	cs, pool := newDB(t)
	enqueue(t, pool, manyEffects, "retry")
	// The lease is far longer than a call takes even on a busy machine, so
	// that the calls repeated are those of killed workers; what a kill
	// leaves leased waits for it.
	const lease = 3 * time.Second
	began := time.Now()
	workers := []*worker{startWorker(t, cs, "work", "w0", lease), startWorker(t, cs, "work", "w1", lease)}
	started := 2
	for kills := 0; kills < 6; kills++ {
		time.Sleep(time.Duration(50+rand.IntN(200)) * time.Millisecond) // random kill times, not an ordering
		i := rand.IntN(len(workers))
		workers[i].kill()
		workers[i] = startWorker(t, cs, "work", "w"+strconv.Itoa(started), lease)
		started++
	}
	allDone(t, pool, 5*time.Minute)
	calls := count(t, pool, `SELECT count(*) FROM provider_calls`)
	lost := count(t, pool, `SELECT count(*) FROM idempotency_effect_attempt WHERE outcome = 'lost'`)
	unknown := count(t, pool, `SELECT count(*) FROM idempotency_effect_attempt WHERE outcome = 'unknown'`)
	t.Logf("%d provider calls for %d effects over %d worker processes in %v; %d attempts lost (to a kill), %d unknown (a call that failed or ran out of time)",
		calls, manyEffects, started, time.Since(began).Round(time.Millisecond), lost, unknown)
	// An effect is called again only after an attempt whose outcome is not
	// known: one a kill lost, or (the retry policy) one whose call failed
	// without an answer.
	if calls-manyEffects > lost+unknown {
		t.Errorf("%d repeated calls but only %d lost and %d unknown attempts: an effect was repeated after a known outcome", calls-manyEffects, lost, unknown)
	}
}
