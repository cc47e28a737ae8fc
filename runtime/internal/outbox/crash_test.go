package outbox_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

// crashOnce enqueues one effect under policy, lets a worker process call
// the provider and SIGKILLs it before it records the outcome, then runs a
// worker in this process with provider p until the effect leaves pending.
// It returns the effect key and the state the effect ended in.
func crashOnce(t *testing.T, cs string, pool *pgxpool.Pool, policy string, p *fakeProvider) (string, string) {
	t.Helper()
	enqueue(t, pool, 1, policy)
	const lease = time.Second
	crashed := startWorker(t, cs, "crash", "crashed", lease)
	key := crashed.calledKey(t)
	crashed.kill()
	if n := count(t, pool, `SELECT count(*) FROM idempotency_outbox WHERE state = 'pending' AND lease_until IS NOT NULL`); n != 1 {
		t.Fatalf("%d effects leased after the kill, want 1 (the outcome was not recorded)", n)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p.pool, p.worker = pool, "survivor"
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "survivor", Providers: map[string]idem.Provider{"email": p},
		Lease: lease, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	var state string
	waitFor(t, "the effect to leave pending", 20*time.Second, func() bool {
		if err := pool.QueryRow(t.Context(), `SELECT state FROM idempotency_outbox`).Scan(&state); err != nil {
			t.Fatal(err)
		}
		return state != "pending"
	})
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	return key, state
}

// attempts lists the effect's attempt history as worker:kind:outcome.
func attempts(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT worker || ':' || coalesce(kind, '-') || ':' || coalesce(outcome, '-')
FROM idempotency_effect_attempt ORDER BY fencing_token`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestKilledAfterTheCallRetryRepeatsWithTheSameKey(t *testing.T) {
	cs, pool := newDB(t)
	key, state := crashOnce(t, cs, pool, "retry", &fakeProvider{})
	if state != "done" {
		t.Errorf("state %s, want done", state)
	}
	if n := count(t, pool, `SELECT count(*) FROM provider_calls WHERE effect_key = $1`, key); n != 2 {
		t.Errorf("the provider saw key %s %d times, want 2 (the call, and its repeat after the kill)", key, n)
	}
	if n := count(t, pool, `SELECT count(DISTINCT effect_key) FROM provider_calls`); n != 1 {
		t.Errorf("the provider saw %d keys, want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM provider_done`); n != 1 {
		t.Errorf("the provider carried out %d effects, want 1 (it deduplicates by key)", n)
	}
	want := []string{"crashed:-:lost", "survivor:call:done"}
	if got := attempts(t, pool); !slices.Equal(got, want) {
		t.Errorf("attempts %q, want %q", got, want)
	}
}

func TestKilledAfterTheCallVerifyAsksAndDoesNotRepeat(t *testing.T) {
	cs, pool := newDB(t)
	var verifies atomic.Int64
	key, state := crashOnce(t, cs, pool, "verify", &fakeProvider{verifies: &verifies})
	if state != "done" {
		t.Errorf("state %s, want done", state)
	}
	if n := verifies.Load(); n != 1 {
		t.Errorf("Verify asked %d times, want 1", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM provider_calls WHERE effect_key = $1`, key); n != 1 {
		t.Errorf("the provider saw key %s %d times, want 1 (Verify found it done)", key, n)
	}
	want := []string{"crashed:-:lost", "survivor:verify:verified_done"}
	if got := attempts(t, pool); !slices.Equal(got, want) {
		t.Errorf("attempts %q, want %q", got, want)
	}
}

func TestKilledAfterTheCallHaltRequiresRecovery(t *testing.T) {
	cs, pool := newDB(t)
	key, state := crashOnce(t, cs, pool, "halt", &fakeProvider{})
	if state != "requires_recovery" {
		t.Errorf("state %s, want requires_recovery", state)
	}
	if n := count(t, pool, `SELECT count(*) FROM provider_calls WHERE effect_key = $1`, key); n != 1 {
		t.Errorf("the provider saw key %s %d times, want 1 (halt never repeats)", key, n)
	}
	want := []string{"crashed:-:lost", "survivor:none:halted"}
	if got := attempts(t, pool); !slices.Equal(got, want) {
		t.Errorf("attempts %q, want %q", got, want)
	}
}
