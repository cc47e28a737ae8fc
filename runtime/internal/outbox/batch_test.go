package outbox_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
)

// An outcome waits for others to share its statement no longer than its
// call may run: with a delay far longer than the lease, it is recorded at
// the end of the call's time, while the worker runs on.
func TestAnOutcomeWaitsForItsBatchNoLongerThanItsCallMay(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "retry")
	events := make(eventLog, 1)
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": noopProvider{}},
		Lease: 5 * time.Second, RecordDelay: time.Hour, Observer: events}) // its last tenth, 0.5s, is the record's margin on a busy machine
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	select {
	case ev := <-events:
		if ev.Kind != idem.EffectEventDone {
			t.Errorf("event %s, want done", ev.Kind)
		}
	case <-time.After(time.Minute): // the delay is an hour; the call's time 4.5s
		t.Fatal("no outcome recorded within a minute: the delay outlasted the lease")
	}
	stop()
	if got, want := attempts(t, pool), []string{":call:done"}; len(got) != 1 || got[0][len(got[0])-len(want[0]):] != want[0] {
		t.Errorf("attempts %q, want one %s", got, want[0])
	}
}

// start runs w until stop is called; stop returns once Run has.
func start(t *testing.T, w *idem.Worker) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	return func() {
		t.Helper()
		cancel()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
	}
}

// calledProvider counts its calls, which answer done.
type calledProvider struct{ calls atomic.Int64 }

func (p *calledProvider) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	p.calls.Add(1)
	return idem.EffectDone()
}

// Stopping records every outcome that waits for its batch: Run returns
// only after them.
func TestStoppingRecordsTheOutcomesThatWait(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 3, "retry")
	p := &calledProvider{}
	done := &countKind{kind: idem.EffectEventDone, target: 3, all: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p},
		RecordDelay: time.Hour, Observer: done}) // only stopping (or the lease's 54s) records
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	waitFor(t, "three calls", 20*time.Second, func() bool { return p.calls.Load() == 3 })
	stop()
	if n := done.n.Load(); n != 3 {
		t.Errorf("%d done events when Run returned, want 3", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM idempotency_outbox WHERE state = 'done' AND lease_until IS NULL`); n != 3 {
		t.Errorf("%d effects done when Run returned, want 3", n)
	}
	if n := count(t, pool, `SELECT count(*) FROM idempotency_effect_attempt WHERE outcome = 'done' AND kind = 'call'`); n != 3 {
		t.Errorf("%d attempts recorded done, want 3", n)
	}
}

// failing answers failed for good with an error PostgreSQL text cannot
// hold as it is.
type failing struct{}

func (failing) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	return idem.EffectFailed(errors.New("nul\x00 and \xff"))
}

// A provider's error is stored with its NUL bytes and invalid UTF-8
// replaced: as it is it would fail the statement, and with it the record
// of every outcome in the batch.
func TestAnErrorPostgreSQLCannotHoldIsStoredReplaced(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 2, "retry")
	done := &countKind{kind: idem.EffectEventFailed, target: 2, all: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": failing{}},
		RecordBatch: 2, RecordDelay: time.Hour, Observer: done}) // both in one statement
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	<-done.all
	stop()
	rows, err := pool.Query(t.Context(), `SELECT o.last_error, a.error FROM idempotency_outbox o JOIN idempotency_effect_attempt a USING (scope, operation_id, seq)`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var last, attempt string
		if err := rows.Scan(&last, &attempt); err != nil {
			t.Fatal(err)
		}
		got = append(got, last, attempt)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	const want = "nul\uFFFD and \uFFFD"
	if len(got) != 4 || slices.IndexFunc(got, func(s string) bool { return s != want }) >= 0 {
		t.Errorf("errors stored %q, want %q for both effects and both attempts", got, want)
	}
}

// countKind signals when target events of kind were observed.
type countKind struct {
	kind   idem.EffectEventKind
	n      atomic.Int64
	target int64
	all    chan struct{}
}

func (c *countKind) ObserveEffect(ev idem.EffectEvent) {
	if ev.Kind == c.kind && c.n.Add(1) == c.target {
		close(c.all)
	}
}

// A saturated worker claims again once a call has ended, in one statement
// for its free slots and ahead of them (up to AheadClaim times
// Concurrency), not one statement each time a call ends.
func TestASaturatedWorkerClaimsForAllItsFreeSlotsAtOnce(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 8, "retry")
	held := &heldProvider{called: make(chan string, 8), release: make(chan struct{})}
	done := &countKind{kind: idem.EffectEventDone, target: 8, all: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": held},
		Concurrency: 4, PollInterval: time.Minute, Observer: done}) // a claim of fewer than 12 waits up to 6s for more room
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	for range 4 {
		<-held.called
	}
	close(held.release) // the four calls end; the next four pass at once
	<-done.all
	stop()
	rows, err := pool.Query(t.Context(), `SELECT count(*) FROM idempotency_effect_attempt GROUP BY started_at ORDER BY started_at`)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{4, 4}; !slices.Equal(claims, want) {
		t.Errorf("effects per claim %v, want %v", claims, want)
	}
}
