package outbox_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/locktest"
)

// logFailures forwards the error of each line of a worker's log whose
// message is message.
type logFailures struct {
	message string
	errs    chan error
}

// recordFailures returns the logFailures of the batches whose record
// failed.
func recordFailures() logFailures {
	return logFailures{message: "idem: recording an effect's outcome; the lease will hand it on", errs: make(chan error, 1)}
}

func (h logFailures) Enabled(context.Context, slog.Level) bool { return true }

func (h logFailures) Handle(_ context.Context, r slog.Record) error {
	if r.Message != h.message {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if err, ok := a.Value.Any().(error); ok && a.Key == "err" {
			h.errs <- err
		}
		return true
	})
	return nil
}

func (h logFailures) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h logFailures) WithGroup(string) slog.Handler      { return h }

// doneProvider returns done at once.
type doneProvider struct{}

func (doneProvider) Do(context.Context, idem.EffectCall) idem.EffectOutcome { return idem.EffectDone() }

// A batch of outcomes waits for a lock on the outbox table (DDL, VACUUM
// FULL, LOCK TABLE in another session) no longer than the lease's last
// tenth, on the server: the statement fails with lock_timeout's SQLSTATE
// 55P03 before the client's deadline (a second later) would end it, no
// backend of the worker goes on waiting, nothing is recorded, and the
// effect's lease hands it on: once it has run out, a worker calls the
// effect again. Before, the statement waited under the session's
// lock_timeout (none) until the client's deadline, whose cancel request
// pgx sends after the call returned.
//
// The worker has one connection, on which a first effect's record
// prepared the statements, claims on its poll only
// (an hour: the claim that took both effects came back short), so that
// no claim holds the connection while the record needs it.
func TestARecordWaitIsBoundedAgainstATableLock(t *testing.T) {
	cs, pool := newDB(t)
	enqueueNamed(t, pool, "sms", 1, "retry")
	enqueueNamed(t, pool, "email", 1, "retry")
	const app = "worker-under-lock"
	one := locktest.OneConnPool(t, cs, app)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	held := &heldProvider{called: make(chan string, 1), release: make(chan struct{})}
	events, failures := make(eventLog, 8), recordFailures()
	a, err := idem.NewWorker(idem.WorkerConfig{Pool: one, ID: "a", Providers: map[string]idem.Provider{"sms": doneProvider{}, "email": held},
		Concurrency: 3, Lease: 10 * time.Second, PollInterval: time.Hour, GaugeInterval: time.Hour,
		Observer: events, Logger: slog.New(failures)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	<-held.called
	if ev := <-events; ev.Effect != "sms" || ev.Kind != idem.EffectEventDone {
		t.Fatalf("the first event: %s of %s, want done of sms", ev.Kind, ev.Effect)
	}

	barrier := lockOutbox(t, pool, "SHARE")
	close(held.release) // the email's call returns done, to be recorded behind the lock
	err = <-failures.errs
	if pgErr := (*pgconn.PgError)(nil); !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Errorf("the record behind the table's lock failed with %v, want the server's lock_timeout (55P03)", err)
	}
	if n := locktest.LockWaiters(t, pool, app); n != 0 {
		t.Errorf("%d of the worker's backends still wait on a lock after the record failed", n)
	}
	if err := barrier.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	if diff := cmp.Diff([]string{"email:a:-:-", "sms:a:call:done"}, effectAttempts(t, pool)); diff != "" {
		t.Errorf("attempts (-want +got): the email's outcome must not be recorded\n%s", diff)
	}

	// The lease hands the email on: once it has run out, b calls it.
	expireLease(t, pool, "email")
	bEvents := make(eventLog, 8)
	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	b, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "b", Providers: map[string]idem.Provider{"email": doneProvider{}},
		PollInterval: 10 * time.Millisecond, Observer: bEvents})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = b.Run(ctx) })
	if ev := <-bEvents; ev.Effect != "email" || ev.Kind != idem.EffectEventDone || ev.Attempt != 2 {
		t.Errorf("b's event: %s of %s at attempt %d, want done of email at attempt 2", ev.Kind, ev.Effect, ev.Attempt)
	}
	cancel()
	wg.Wait()
	if diff := cmp.Diff([]string{"email:a:-:lost", "email:b:call:done", "sms:a:call:done"}, effectAttempts(t, pool)); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

// effectAttempts lists every attempt as effect:worker:kind:outcome, by
// effect and then fencing token.
func effectAttempts(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT o.effect || ':' || a.worker || ':' || coalesce(a.kind, '-') || ':' || coalesce(a.outcome, '-')
FROM idempotency_effect_attempt a JOIN idempotency_outbox o USING (scope, operation_id, seq) ORDER BY o.effect, a.fencing_token`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}
