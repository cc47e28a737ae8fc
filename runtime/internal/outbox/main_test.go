package outbox_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// The child worker processes read these.
const (
	childModeEnv  = "OUTBOX_TEST_CHILD" // "crash": block after the first provider call; "work": run until killed
	childConnEnv  = "OUTBOX_TEST_CONN"
	childLeaseEnv = "OUTBOX_TEST_LEASE"
	childIDEnv    = "OUTBOX_TEST_ID"
)

func TestMain(m *testing.M) {
	if os.Getenv(childModeEnv) != "" {
		os.Exit(child())
	}
	os.Exit(pgtest.Main(m))
}

// providerDDL is the fake provider's side: every call it receives, and the
// effects it has carried out, deduplicated by effect key as a real
// provider deduplicates by its idempotency key.
const providerDDL = `CREATE TABLE provider_calls (
	id         bigserial   PRIMARY KEY,
	effect_key text        NOT NULL,
	attempt    integer     NOT NULL,
	worker     text        NOT NULL,
	called_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE TABLE provider_done (
	effect_key text PRIMARY KEY
)`

// newDB returns a connection string and pool for a database of the test's
// own, migrated, with the fake provider's tables.
func newDB(t testing.TB) (string, *pgxpool.Pool) {
	t.Helper()
	cs := pgtest.ConnString(t)
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), providerDDL); err != nil {
		t.Fatal(err)
	}
	return cs, pool
}

// enqueue writes n effects named email with policy onUnknown, each of an
// operation of its own, through the store's Enqueue in one transaction.
func enqueue(t testing.TB, pool *pgxpool.Pool, n int, onUnknown string) {
	t.Helper()
	enqueueNamed(t, pool, "email", n, onUnknown)
}

// enqueueNamed is enqueue for effects named name.
func enqueueNamed(t testing.TB, pool *pgxpool.Pool, name string, n int, onUnknown string) {
	t.Helper()
	store := pgstore.New("")
	err := pgx.BeginFunc(t.Context(), pool, func(tx pgx.Tx) error {
		for range n {
			if _, err := store.Enqueue(t.Context(), tx, newEffect(name, onUnknown)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newEffect is an effect named name with policy onUnknown, of an operation
// of its own, due at once.
func newEffect(name, onUnknown string) pgstore.Effect {
	var id [16]byte
	_, _ = rand.Read(id[:])
	return pgstore.Effect{Scope: "acme", OperationID: id, Operation: "createOrder", Name: name, OnUnknown: onUnknown,
		Payload: []byte(`{"to":"a@example.com"}`)}
}

// fakeProvider records each call in provider_calls and carries the effect
// out once per effect key in provider_done; Verify looks there.
type fakeProvider struct {
	pool      *pgxpool.Pool
	worker    string
	afterCall func(key string) // runs after the call is recorded, before Do returns
	verifies  *atomic.Int64    // counts Verify calls when set
}

func (p *fakeProvider) Do(ctx context.Context, c idem.EffectCall) idem.EffectOutcome {
	// Once it has the call, the provider carries it out even if the
	// worker's deadline passes meanwhile (on a busy machine the call may
	// wait for a connection): the worker then records the outcome late or,
	// its lease taken over, is fenced. Cut short, the call would be an
	// unknown outcome that may or may not have happened.
	_, err := p.pool.Exec(context.WithoutCancel(ctx), `WITH c AS (INSERT INTO provider_calls (effect_key, attempt, worker) VALUES ($1, $2, $3))
INSERT INTO provider_done (effect_key) VALUES ($1) ON CONFLICT DO NOTHING`, c.Key, c.Attempt, p.worker)
	if err != nil {
		return idem.EffectUnknown(err)
	}
	if p.afterCall != nil {
		p.afterCall(c.Key)
	}
	return idem.EffectDone()
}

func (p *fakeProvider) Verify(ctx context.Context, key string) idem.VerifyOutcome {
	if p.verifies != nil {
		p.verifies.Add(1)
	}
	var done bool
	if err := p.pool.QueryRow(ctx, `SELECT exists (SELECT FROM provider_done WHERE effect_key = $1)`, key).Scan(&done); err != nil {
		return idem.VerifyUnknown
	}
	if done {
		return idem.VerifyDone
	}
	return idem.VerifyNotDone
}

// child is a worker process: in crash mode its provider blocks forever
// after its first call is recorded, having said "called <key>" on stdout,
// so the parent can kill it between the call and the outcome's record.
func child() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv(childConnEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	lease, err := time.ParseDuration(os.Getenv(childLeaseEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	id := os.Getenv(childIDEnv)
	p := &fakeProvider{pool: pool, worker: id}
	if os.Getenv(childModeEnv) == "crash" {
		p.afterCall = func(key string) {
			fmt.Printf("called %s\n", key)
			select {} // until SIGKILL
		}
	}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: id, Providers: map[string]idem.Provider{"email": p},
		Lease: lease, PollInterval: 10 * time.Millisecond, Concurrency: 8})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("running")
	if err := w.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		<-tick.C
	}
}

// count runs a counting query.
func count(t testing.TB, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
