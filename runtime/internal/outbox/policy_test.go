package outbox_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

// scripted answers Do and Verify from scripts, the last answer repeating.
type scripted struct {
	mu      sync.Mutex
	do      []idem.EffectOutcome
	verify  []idem.VerifyOutcome
	calls   atomic.Int64
	asked   atomic.Int64
	blocked chan struct{} // when set, Do blocks until it is closed
}

func (s *scripted) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	n := s.calls.Add(1)
	if s.blocked != nil {
		<-s.blocked
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.do[min(int(n)-1, len(s.do)-1)]
}

func (s *scripted) Verify(context.Context, string) idem.VerifyOutcome {
	n := s.asked.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.verify[min(int(n)-1, len(s.verify)-1)]
}

// untilEvent forwards the first event of kind.
type untilEvent struct {
	kind idem.EffectEventKind
	once sync.Once
	ch   chan struct{}
}

func (u *untilEvent) ObserveEffect(ev idem.EffectEvent) {
	if ev.Kind == u.kind {
		u.once.Do(func() { close(u.ch) })
	}
}

// untilBound bounds runUntil's wait: past a minute, an attempt whose
// outcome could not be recorded on a loaded machine is handed on by its
// lease (the default, one minute) and the effect still ends.
const untilBound = 3 * time.Minute

// testLog writes a worker's log lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// runUntil runs a worker with p until it reports kind, then stops it.
func runUntil(t *testing.T, pool *pgxpool.Pool, p idem.Provider, kind idem.EffectEventKind, maxAttempts int) {
	t.Helper()
	u := &untilEvent{kind: kind, ch: make(chan struct{})}
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p}, Observer: u,
		PollInterval: 5 * time.Millisecond, MaxAttempts: maxAttempts, Backoff: func(int) time.Duration { return 0 },
		Logger: slog.New(slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	select {
	case <-u.ch:
	case <-time.After(untilBound): // a liveness bound: the worker's warnings are in the test's log
		t.Fatalf("no %s event in %v", kind, untilBound)
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
}

func effectState(t *testing.T, pool *pgxpool.Pool) (state string, attempts int) {
	t.Helper()
	if err := pool.QueryRow(t.Context(), `SELECT state, attempts FROM idempotency_outbox`).Scan(&state, &attempts); err != nil {
		t.Fatal(err)
	}
	return state, attempts
}

var errRefused = errors.New("refused")

func TestNotDoneIsRepeatedUntilTheAttemptsRunOut(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "halt") // not done is repeated under every policy, halt too
	p := &scripted{do: []idem.EffectOutcome{idem.EffectNotDone(errRefused)}}
	runUntil(t, pool, p, idem.EffectEventDead, 3)
	if state, n := effectState(t, pool); state != "dead" || n != 3 || p.calls.Load() != 3 {
		t.Errorf("%s after %d attempts and %d calls, want dead after 3 and 3", state, n, p.calls.Load())
	}
}

func TestFailedForGoodIsRecordedAndNotRepeated(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "retry")
	p := &scripted{do: []idem.EffectOutcome{idem.EffectFailed(errRefused)}}
	runUntil(t, pool, p, idem.EffectEventFailed, 10)
	if state, n := effectState(t, pool); state != "failed" || n != 1 || p.calls.Load() != 1 {
		t.Errorf("%s after %d attempts and %d calls, want failed after 1 and 1", state, n, p.calls.Load())
	}
	var lastErr string
	if err := pool.QueryRow(t.Context(), `SELECT last_error FROM idempotency_outbox`).Scan(&lastErr); err != nil || lastErr != "refused" {
		t.Errorf("last_error %q (%v), want refused", lastErr, err)
	}
}

func TestVerifyKeepsAskingWhileUnknownAndCallsOnNotDone(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "verify")
	p := &scripted{
		do:     []idem.EffectOutcome{idem.EffectUnknown(context.DeadlineExceeded), idem.EffectDone()},
		verify: []idem.VerifyOutcome{idem.VerifyUnknown, idem.VerifyUnknown, idem.VerifyNotDone},
	}
	runUntil(t, pool, p, idem.EffectEventDone, 10)
	want := []string{":call:unknown", ":verify:unknown", ":verify:unknown", ":verify+call:done"}
	got := attempts(t, pool)
	for i := range got {
		got[i] = got[i][len(got[i])-len(want[min(i, len(want)-1)]):]
	}
	if !slices.Equal(got, want) || p.calls.Load() != 2 || p.asked.Load() != 3 {
		t.Errorf("attempts %q with %d calls and %d verifies, want %q, 2 and 3", got, p.calls.Load(), p.asked.Load(), want)
	}
}

func TestUnknownUnderRetryCallsAgainWithTheSameKey(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "retry")
	p := &scripted{do: []idem.EffectOutcome{idem.EffectUnknown(context.DeadlineExceeded), idem.EffectDone()}}
	runUntil(t, pool, p, idem.EffectEventDone, 10)
	if state, n := effectState(t, pool); state != "done" || n != 2 || p.calls.Load() != 2 {
		t.Errorf("%s after %d attempts and %d calls, want done after 2 and 2", state, n, p.calls.Load())
	}
}

// Shutdown: a call that ends within ShutdownTimeout is recorded; one that
// does not is left to its lease, recorded by nobody. Neither verdict
// depends on the machine's speed: the call that finishes is released as
// Run's context ends and has a minute to be recorded, and the one that
// outlasts is released only after Run returned.
func TestShutdownLetsRunningCallsFinishThenLeavesTheRestToTheLease(t *testing.T) {
	for _, finishes := range []bool{true, false} {
		name := map[bool]string{true: "finishes", false: "outlasts"}[finishes]
		t.Run(name, func(t *testing.T) {
			_, pool := newDB(t)
			enqueue(t, pool, 1, "retry")
			p := &scripted{do: []idem.EffectOutcome{idem.EffectDone()}, blocked: make(chan struct{})}
			left := &signalHandler{msg: "idem: the worker shut down during the call; its lease will hand the effect on", ch: make(chan struct{})}
			shutdown := 200 * time.Millisecond
			if finishes {
				shutdown = time.Minute
			}
			w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Providers: map[string]idem.Provider{"email": p},
				PollInterval: 5 * time.Millisecond, ShutdownTimeout: shutdown, Logger: slog.New(left)})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			ran := make(chan error, 1)
			go func() { ran <- w.Run(ctx) }()
			waitFor(t, "the call", 10*time.Second, func() bool { return p.calls.Load() == 1 })
			cancel()
			stopped := time.Now()
			if finishes {
				close(p.blocked)
			}
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
			t.Logf("Run returned %v after its context ended (ShutdownTimeout %v)", time.Since(stopped).Round(time.Millisecond), shutdown)
			var state string
			var leased bool
			if err := pool.QueryRow(t.Context(), `SELECT state, lease_until IS NOT NULL FROM idempotency_outbox`).Scan(&state, &leased); err != nil {
				t.Fatal(err)
			}
			if finishes && (state != "done" || leased) {
				t.Errorf("a call that finished within the timeout: %s, leased %v; want done", state, leased)
			}
			if !finishes {
				if state != "pending" || !leased {
					t.Errorf("a call that outlasted the timeout: %s, leased %v; want pending under its lease", state, leased)
				}
				close(p.blocked) // it returns done now, after Run: still nothing is recorded
				<-left.ch        // the worker has decided what to do with the late outcome
				if got := attempts(t, pool); len(got) != 1 || got[0][len(got[0])-4:] != ":-:-" {
					t.Errorf("attempts %q, want one without an outcome", got)
				}
			}
		})
	}
}

// signalHandler is a slog handler that closes ch when msg is logged.
type signalHandler struct {
	msg  string
	once sync.Once
	ch   chan struct{}
}

func (h *signalHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *signalHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}

func (h *signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *signalHandler) WithGroup(string) slog.Handler      { return h }

// doOnly is a provider without Verify.
type doOnly struct{ calls atomic.Int64 }

func (p *doOnly) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	p.calls.Add(1)
	return idem.EffectUnknown(context.DeadlineExceeded)
}

// Under verify, a provider without Verify cannot be asked: after its
// unknown outcome the effect halts instead of being repeated blind.
func TestVerifyWithoutAVerifierHalts(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "verify")
	p := &doOnly{}
	runUntil(t, pool, p, idem.EffectEventHalted, 10)
	if state, _ := effectState(t, pool); state != "requires_recovery" || p.calls.Load() != 1 {
		t.Errorf("%s after %d calls, want requires_recovery after 1", state, p.calls.Load())
	}
}
