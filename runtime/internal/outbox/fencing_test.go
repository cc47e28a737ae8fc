package outbox_test

import (
	"context"
	"sync"
	"testing"
	"time"

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
