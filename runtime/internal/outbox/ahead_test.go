package outbox_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

// handedBack forwards the worker's log lines that hand back effects
// claimed ahead.
type handedBack chan struct{}

func (h handedBack) Enabled(context.Context, slog.Level) bool { return true }

func (h handedBack) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "idem: handed back effects claimed ahead and not called" {
		h <- struct{}{}
	}
	return nil
}

func (h handedBack) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h handedBack) WithGroup(string) slog.Handler      { return h }

// gatedProvider tells each call's key and holds it until the test lets
// one call through, ignoring its context.
type gatedProvider struct {
	called chan string
	pass   chan struct{}
}

func (p *gatedProvider) Do(_ context.Context, c idem.EffectCall) idem.EffectOutcome {
	p.called <- c.Key
	<-p.pass
	return idem.EffectDone()
}

// handedBackRow tells whether the effect whose key is key was handed
// back as ReleaseEffects does: pending, its lease ended, no attempt spent,
// due again at its enqueue's due time (created_at, the same now()), and
// its history.
func handedBackRow(t *testing.T, pool *pgxpool.Pool, key string) (ok bool, history []string) {
	t.Helper()
	if err := pool.QueryRow(t.Context(), `SELECT state = 'pending' AND lease_until IS NULL AND attempts = 0 AND available_at = created_at,
		array(SELECT coalesce(a.kind, '-') || ':' || coalesce(a.outcome, '-') FROM idempotency_effect_attempt AS a
			WHERE (a.scope, a.operation_id, a.seq) = (o.scope, o.operation_id, o.seq) ORDER BY a.fencing_token)
		FROM idempotency_outbox AS o WHERE effect_key = $1`, key).Scan(&ok, &history); err != nil {
		t.Fatal(err)
	}
	return ok, history
}

// While a backlog lasts a worker claims its next effects once a call has
// ended, ahead of its free call slots, so that they wait in the worker
// for a slot instead of a slot waiting for a claim's round trip: with
// two slots, one call ending brings a claim of up to 3 × 2 effects while
// the other call still runs.
func TestABacklogIsClaimedAheadOfTheFreeCallSlots(t *testing.T) {
	_, pool := newDB(t)
	const n = 20
	enqueue(t, pool, n, "retry")
	p := &gatedProvider{called: make(chan string, n), pass: make(chan struct{})}
	done := &countKind{kind: idem.EffectEventDone, target: n, all: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p},
		Concurrency: 2, PollInterval: time.Minute, Observer: done}) // a claim of fewer than 6 would wait 6s for more room
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	<-p.called
	<-p.called
	p.pass <- struct{}{} // one call ends: the next claim goes out while the other runs
	<-p.called           // a slot took an effect of that claim, so it returned
	if got, want := count(t, pool, `SELECT count(*) FROM idempotency_effect_attempt`), 2+3*2; got != want {
		t.Errorf("%d effects claimed with two calls running and one ended, want %d: the first claim's 2, then 6 ahead", got, want)
	}
	close(p.pass)
	<-done.all
	stop()
	if got := attempts(t, pool); slices.ContainsFunc(got, func(a string) bool { return !strings.HasSuffix(a, ":call:done") }) {
		t.Errorf("attempts %q, want only calls done: no effect claimed ahead waited long enough to be handed back", got)
	}
}

// An effect claimed ahead that waits a tenth of its lease for a call slot
// is handed back rather than called with less time: it is due again where
// it was, no attempt spent, its history row ended as released; then the
// worker claims no more than its free slots, and calls it later as a
// first attempt. Under halt, that matters: the hand-back is not a lost
// attempt, so the effect is called, not halted.
func TestAnEffectClaimedAheadThatWaitsTooLongIsHandedBack(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 3, "halt")
	p := &gatedProvider{called: make(chan string, 3), pass: make(chan struct{})}
	back := make(handedBack, 1)
	done := &countKind{kind: idem.EffectEventDone, target: 3, all: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p},
		Concurrency: 1, Lease: 10 * time.Second, PollInterval: 10 * time.Millisecond, Observer: done, Logger: slog.New(back)})
	// A lease of 10s: the second call, held until the hand-back, gets 9s, so
	// that however slow the machine its lease does not run out meanwhile.
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, w)
	first := <-p.called
	p.pass <- struct{}{} // the first call ends: the worker claims the other two, one to call, one to wait
	second := <-p.called
	<-back // the one that waits has waited 1s: handed back while the second call is held
	var waited string
	if err := pool.QueryRow(t.Context(), `SELECT effect_key FROM idempotency_outbox WHERE effect_key NOT IN ($1, $2)`,
		first, second).Scan(&waited); err != nil {
		t.Fatal(err)
	}
	if ok, history := handedBackRow(t, pool, waited); !ok || !slices.Equal(history, []string{"none:released"}) {
		t.Errorf("the effect that waited: handed back %v, history %q; want true, [none:released]", ok, history)
	}
	close(p.pass)
	if third := <-p.called; third != waited {
		t.Errorf("third call %s, want the effect handed back, %s", third, waited)
	}
	<-done.all
	stop()
	if _, history := handedBackRow(t, pool, waited); !slices.Equal(history, []string{"none:released", "call:done"}) {
		t.Errorf("its history %q, want [none:released call:done]", history)
	}
}

// A worker that stops hands back the effects it claimed ahead and did not
// call, rather than leaving them to their leases (after which they would
// be attempts whose outcome is unknown).
func TestStoppingHandsBackTheEffectsClaimedAhead(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 3, "halt")
	p := &gatedProvider{called: make(chan string, 3), pass: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p},
		Concurrency: 1, PollInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	first := <-p.called
	p.pass <- struct{}{}
	second := <-p.called // the third waits for the slot the second holds
	cancel()
	close(p.pass) // the second call ends after the context did; the third is not called
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	var waited string
	if err := pool.QueryRow(t.Context(), `SELECT effect_key FROM idempotency_outbox WHERE effect_key NOT IN ($1, $2)`,
		first, second).Scan(&waited); err != nil {
		t.Fatal(err)
	}
	if ok, history := handedBackRow(t, pool, waited); !ok || !slices.Equal(history, []string{"none:released"}) {
		t.Errorf("the effect that waited: handed back %v, history %q; want true, [none:released]", ok, history)
	}
	if n := count(t, pool, `SELECT count(*) FROM idempotency_outbox WHERE state = 'done'`); n != 2 {
		t.Errorf("%d effects done, want the two called", n)
	}
}

// ClaimAhead bounds what a worker holds behind a backlog: with two slots
// and one call ended, ClaimAhead 1 claims only the slot that freed (three
// effects claimed in all, and no more can be while two calls run), and
// ClaimAhead 2 claims ahead, up to 2 × 2 a claim and 2 × 2 × 2 held, so
// that the third call comes from a claim of four and at most 1 + 8
// effects are claimed by then, a second claim in flight included.
func TestClaimAheadBoundsWhatAWorkerHolds(t *testing.T) {
	for _, tc := range []struct {
		ahead          int
		least, largest int
	}{{1, 3, 3}, {2, 2 + 2*2, 1 + 2*2*2}} {
		t.Run(fmt.Sprintf("ClaimAhead=%d", tc.ahead), func(t *testing.T) {
			_, pool := newDB(t)
			const n = 20
			enqueue(t, pool, n, "retry")
			p := &gatedProvider{called: make(chan string, n), pass: make(chan struct{})}
			done := &countKind{kind: idem.EffectEventDone, target: n, all: make(chan struct{})}
			w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p},
				Concurrency: 2, ClaimAhead: tc.ahead, PollInterval: 10 * time.Millisecond, Observer: done})
			if err != nil {
				t.Fatal(err)
			}
			stop := start(t, w)
			<-p.called
			<-p.called
			p.pass <- struct{}{} // one call ends: the next claim goes out while the other runs
			<-p.called           // a slot took an effect of that claim, so it returned
			if got := count(t, pool, `SELECT count(*) FROM idempotency_effect_attempt`); got < tc.least || got > tc.largest {
				t.Errorf("%d effects claimed with two calls running and one ended, want %d to %d", got, tc.least, tc.largest)
			}
			close(p.pass)
			<-done.all
			stop()
		})
	}
}

// A negative ClaimAhead is refused, naming the field.
func TestNegativeClaimAheadIsRefused(t *testing.T) {
	_, err := idem.NewWorker(idem.WorkerConfig{Pool: &pgxpool.Pool{}, Providers: map[string]idem.Provider{"email": doneProvider{}},
		ClaimAhead: -1})
	if err == nil || !strings.Contains(err.Error(), "WorkerConfig.ClaimAhead is -1") {
		t.Errorf("NewWorker with ClaimAhead -1: %v, want an error naming WorkerConfig.ClaimAhead", err)
	}
}
