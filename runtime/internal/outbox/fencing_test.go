package outbox_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

// observer forwards the events of one kind.
type observer struct {
	kind idem.EffectEventKind
	ch   chan idem.EffectEvent
}

func (o observer) ObserveEffect(ev idem.EffectEvent) {
	if ev.Kind == o.kind {
		o.ch <- ev
	}
}

// pausedProvider blocks in Do until released, ignoring its context, like
// a call stuck in a slow network.
type pausedProvider struct {
	reached chan string
	release chan struct{}
	once    sync.Once
}

func (p *pausedProvider) Do(_ context.Context, c idem.EffectCall) idem.EffectOutcome {
	p.once.Do(func() { p.reached <- c.Key })
	<-p.release
	return idem.EffectDone()
}

func TestAWorkerWhoseLeaseWasTakenOverRecordsNothing(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "retry")
	const lease = 300 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	paused := &pausedProvider{reached: make(chan string, 1), release: make(chan struct{})}
	fenced := observer{kind: idem.EffectEventFenced, ch: make(chan idem.EffectEvent, 1)}
	a, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "paused", Providers: map[string]idem.Provider{"email": paused},
		Lease: lease, PollInterval: 10 * time.Millisecond, Observer: fenced, ShutdownTimeout: time.Second,
		Concurrency: 1}) // one call at a time: the paused worker cannot claim the effect back itself
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	<-paused.reached

	// The successor takes the short lease over once it ran out; its own
	// lease is long, so that however slow the machine, its call and record
	// end within it and it takes the effect over exactly once.
	done := observer{kind: idem.EffectEventDone, ch: make(chan idem.EffectEvent, 1)}
	b, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "successor", Providers: map[string]idem.Provider{"email": &fakeProvider{pool: pool, worker: "successor"}},
		Lease: time.Minute, PollInterval: 10 * time.Millisecond, Observer: done})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = b.Run(ctx) })
	<-done.ch // the successor took the lease over once it ran out, and recorded done

	close(paused.release) // the paused worker's call now returns done, too late
	ev := <-fenced.ch
	if ev.Attempt != 1 {
		t.Errorf("the fenced outcome was attempt %d's, want 1's", ev.Attempt)
	}
	cancel()
	wg.Wait()
	var state, leasedBy string
	var token int64
	if err := pool.QueryRow(t.Context(), `SELECT state, leased_by, fencing_token FROM idempotency_outbox`).Scan(&state, &leasedBy, &token); err != nil {
		t.Fatal(err)
	}
	if state != "done" || leasedBy != "successor" || token != 2 {
		t.Errorf("effect %s, leased by %s under token %d; want done, successor, 2", state, leasedBy, token)
	}
	want := []string{"paused:-:lost", "successor:call:done"}
	if got := attempts(t, pool); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("attempts %q, want %q: the paused worker's outcome must not be recorded", got, want)
	}
}

// heldProvider tells each call's key and holds the call until released,
// ignoring its context.
type heldProvider struct {
	called  chan string
	release chan struct{}
}

func (p *heldProvider) Do(_ context.Context, c idem.EffectCall) idem.EffectOutcome {
	p.called <- c.Key
	<-p.release
	return idem.EffectDone()
}

// eventLog forwards every event but the gauge's.
type eventLog chan idem.EffectEvent

func (l eventLog) ObserveEffect(ev idem.EffectEvent) {
	if ev.Kind != idem.EffectEventOldestDue {
		l <- ev
	}
}

// expireLease ends the leases on the effects named effect as time would:
// their lease and due time move into the past on the database's clock.
func expireLease(t *testing.T, pool *pgxpool.Pool, effect string) {
	t.Helper()
	if _, err := pool.Exec(t.Context(), `UPDATE idempotency_outbox
		SET lease_until = now() - interval '1 second', available_at = now() - interval '1 second'
		WHERE effect = $1 AND lease_until IS NOT NULL`, effect); err != nil {
		t.Fatal(err)
	}
}

// batchLog keeps, from a worker's debug log, each batch it recorded: how
// many outcomes one statement carried and how many of those were fenced.
type batchLog struct {
	mu      sync.Mutex
	batches [][2]int64
}

func (h *batchLog) Enabled(context.Context, slog.Level) bool { return true }

func (h *batchLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "idem: recorded effect outcomes in one statement" {
		return nil
	}
	var b [2]int64
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "outcomes":
			b[0] = a.Value.Int64()
		case "fenced":
			b[1] = a.Value.Int64()
		}
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.batches = append(h.batches, b)
	return nil
}

func (h *batchLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *batchLog) WithGroup(string) slog.Handler      { return h }

func (h *batchLog) all() [][2]int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.batches)
}

// A batch of outcomes is recorded row by row under each row's fencing
// token: of three outcomes sent in one statement, the one whose lease
// another worker took over meanwhile is refused, the other two recorded.
func TestABatchRefusesOnlyTheOutcomeWhoseLeaseWasTakenOver(t *testing.T) {
	_, pool := newDB(t)
	enqueueNamed(t, pool, "email", 2, "retry")
	enqueueNamed(t, pool, "sms", 1, "retry")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	// a claims all three at once and holds their calls; it records only
	// full batches of three (its delay outlasts the test, its lease the
	// takeover).
	held := &heldProvider{called: make(chan string, 3), release: make(chan struct{})}
	events, batches := make(eventLog, 8), &batchLog{}
	a, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "a", Providers: map[string]idem.Provider{"email": held, "sms": held},
		Concurrency: 3, Lease: time.Minute, RecordBatch: 3, RecordDelay: time.Hour, Observer: events, Logger: slog.New(batches)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	for range 3 {
		<-held.called
	}

	// a's lease on the sms effect runs out (on the database's clock, which
	// leases are read on) and b takes it over; its call holds the new lease
	// while a records.
	expireLease(t, pool, "sms")
	bHeld := &heldProvider{called: make(chan string, 1), release: make(chan struct{})}
	bEvents := make(eventLog, 8)
	b, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, ID: "b", Providers: map[string]idem.Provider{"sms": bHeld},
		PollInterval: 10 * time.Millisecond, Observer: bEvents})
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() { _ = b.Run(ctx) })
	<-bHeld.called

	close(held.release) // a's three calls return done, as one batch
	got := map[string]int{}
	for range 3 {
		ev := <-events
		got[ev.Effect+":"+ev.Kind.String()]++
	}
	if want := map[string]int{"email:done": 2, "sms:fenced": 1}; !maps.Equal(got, want) {
		t.Errorf("a's events %v, want %v", got, want)
	}
	close(bHeld.release) // b's call returns done, under the lease it still holds
	if ev := <-bEvents; ev.Effect != "sms" || ev.Kind != idem.EffectEventDone {
		t.Errorf("b's event %s of %s, want done of sms", ev.Kind, ev.Effect)
	}
	cancel()
	wg.Wait()
	if got, want := batches.all(), [][2]int64{{3, 1}}; !slices.Equal(got, want) {
		t.Errorf("a recorded batches (outcomes, fenced) %v, want %v: one statement of three, one fenced", got, want)
	}
	rows, err := pool.Query(t.Context(), `SELECT o.effect, o.state, o.leased_by, o.fencing_token,
  string_agg(a.worker || ':' || coalesce(a.kind, '-') || ':' || coalesce(a.outcome, '-'), ' ' ORDER BY a.fencing_token)
FROM idempotency_outbox o JOIN idempotency_effect_attempt a USING (scope, operation_id, seq)
GROUP BY o.scope, o.operation_id, o.seq ORDER BY o.effect`)
	if err != nil {
		t.Fatal(err)
	}
	var effects []string
	for rows.Next() {
		var effect, state, leasedBy, history string
		var token int64
		if err := rows.Scan(&effect, &state, &leasedBy, &token, &history); err != nil {
			t.Fatal(err)
		}
		effects = append(effects, fmt.Sprintf("%s %s by %s under %d: %s", effect, state, leasedBy, token, history))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"email done by a under 1: a:call:done",
		"email done by a under 1: a:call:done",
		"sms done by b under 2: a:-:lost b:call:done",
	}
	if diff := cmp.Diff(want, effects); diff != "" {
		t.Errorf("effects and their attempts (-want +got):\n%s", diff)
	}
}
