package idem_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// skewRetention is the retention and the tombstone period of the skew
// test: shorter than 2 minutes, so that a deadline taken from a clock 2
// minutes off would already be past (or a sweep 2 minutes ahead would
// delete the record), and long enough for a subtest on a busy machine.
const skewRetention = 90 * time.Second

// Must show 3 (issue 23): two instances on one database, one whose clock
// is 2 minutes or 73 hours ahead, or 2 minutes or 40 days behind, the
// other right. The same key sent to both, one then the other each way
// round and concurrently, runs the business once and gets the same answer
// every time, never 409 expired within retention; a sweep by the skewed
// instance deletes nothing early (and logs the skew); the retries after
// it are answered the same; each operation's effect runs once, with a
// worker on each clock.
func TestInstancesWhoseClocksDifferAnswerAsOne(t *testing.T) {
	for _, skew := range []time.Duration{2 * time.Minute, 73 * time.Hour, -2 * time.Minute, -40 * 24 * time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			d := newDB(t)
			c := orderContract()
			c.Retention, c.Tombstone = skewRetention, skewRetention
			var calls atomic.Int32
			business := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
				calls.Add(1)
				return createOrderWithEmail(ctx, tx, op, req)
			}
			logs := &logCapture{}
			right := newExecutor(t, d, idem.Config{})
			skewed := newExecutor(t, d, idem.Config{Clock: idemtest.SkewedClock(skew), Logger: slog.New(logs)})
			instances := []http.Handler{orderHandler(t, right, c, business), orderHandler(t, skewed, c, business)}
			const body = `{"customer":"c-1","amount":1}`
			answers := map[string]idemtest.Response{} // each key's first answer
			same := func(what, key string, r idemtest.Response) {
				t.Helper()
				first, ok := answers[key]
				switch {
				case r.Status != http.StatusCreated:
					t.Fatalf("%s: status %d body %s, want 201", what, r.Status, r.Body)
				case !ok:
					answers[key] = r
				case !bytes.Equal(r.Body, first.Body) || r.Header.Get("Location") != first.Header.Get("Location"):
					t.Fatalf("%s: %s (Location %s), want the first answer %s (Location %s)", what, r.Body,
						r.Header.Get("Location"), first.Body, first.Header.Get("Location"))
				}
			}

			// One then the other, each way round.
			for firstTo, key := range []string{"right-first", "skewed-first"} {
				for i := range 4 {
					to := (firstTo + i) % 2
					same(fmt.Sprintf("%s, request %d to instance %d", key, i, to), key, post(instances[to], "tenant-a", key, body))
				}
			}
			// Concurrently, copies to both.
			res := idemtest.Concurrently(8, func(i int) idemtest.Response {
				return post(instances[i%2], "tenant-a", "concurrent", body)
			})
			var fresh int
			for i, r := range res {
				same(fmt.Sprintf("concurrent copy %d to instance %d", i, i%2), "concurrent", r)
				if r.Header.Get("Idempotent-Replayed") != "true" {
					fresh++
				}
			}
			if fresh != 1 {
				t.Errorf("%d concurrent copies ran as new operations, want 1", fresh)
			}

			// A sweep by the skewed instance deletes nothing within
			// retention, and logs the skew.
			swept, err := skewed.Sweep(t.Context(), idem.MaintainOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if swept.Tombstoned+swept.Deleted != 0 {
				t.Errorf("the skewed instance's sweep: %+v, want nothing tombstoned or deleted within retention", swept)
			}
			if swept.ClockSkew.Abs() < skew.Abs()/2 || (swept.ClockSkew > 0) != (skew > 0) {
				t.Errorf("sweep measured a skew of %s, want about %s", swept.ClockSkew, skew)
			}
			wantSkewWarning(t, logs)
			for key := range answers {
				for to, h := range instances {
					same(fmt.Sprintf("%s after the sweep, to instance %d", key, to), key, post(h, "tenant-a", key, body))
				}
			}
			if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE state = 'completed'"); n != len(answers) {
				t.Errorf("%d completed records, want %d", n, len(answers))
			}
			if n := calls.Load(); n != int32(len(answers)) {
				t.Errorf("the business ran %d times for %d keys", n, len(answers))
			}
			if n := d.count(t, "SELECT count(*) FROM orders"); n != len(answers) {
				t.Errorf("%d orders for %d keys", n, len(answers))
			}
			runEffectsOnBothClocks(t, d, skew, len(answers))
		})
	}
}

// runEffectsOnBothClocks runs a worker on the true clock and one off by
// skew until want effects ran, and fails t unless each ran exactly once.
func runEffectsOnBothClocks(t *testing.T, d *db, skew time.Duration, want int) {
	t.Helper()
	p := &countingProvider{called: make(chan string, 4*want), calls: map[string]int{}}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for i, clock := range []idem.Clock{nil, idemtest.SkewedClock(skew)} {
		w, err := idem.NewWorker(idem.WorkerConfig{Pool: d.pool, ID: fmt.Sprintf("w%d", i), Clock: clock,
			Providers: map[string]idem.Provider{"confirmation_email": p}, PollInterval: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { _ = w.Run(ctx) })
	}
	for range want {
		select {
		case <-p.called:
		case <-time.After(time.Minute): // a liveness bound, far past a poll
			t.Fatalf("the workers ran %v, want %d effects", p.snapshot(), want)
		}
	}
	cancel()
	wg.Wait()
	calls := p.snapshot()
	if len(calls) != want {
		t.Errorf("effects called: %v, want %d", calls, want)
	}
	for key, n := range calls {
		if n != 1 {
			t.Errorf("effect %s called %d times, want once", key, n)
		}
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_outbox WHERE state = 'done'"); n != want {
		t.Errorf("%d effects done, want %d", n, want)
	}
}

// countingProvider counts its calls per effect key.
type countingProvider struct {
	mu     sync.Mutex
	calls  map[string]int
	called chan string
}

func (p *countingProvider) Do(_ context.Context, c idem.EffectCall) idem.EffectOutcome {
	p.mu.Lock()
	p.calls[c.Key]++
	p.mu.Unlock()
	select {
	case p.called <- c.Key:
	default: // more calls than the test waits for: the counts tell
	}
	return idem.EffectDone()
}

// snapshot copies the counts.
func (p *countingProvider) snapshot() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.calls))
	for k, n := range p.calls {
		out[k] = n
	}
	return out
}

// wantSkewWarning fails t unless logs hold a warning naming the clock
// skew.
func wantSkewWarning(t *testing.T, logs *logCapture) {
	t.Helper()
	for _, r := range logs.at(slog.LevelWarn) {
		if r["clock_skew"] != "" {
			return
		}
	}
	t.Errorf("no warning about the clock skew; the warnings: %v", logs.at(slog.LevelWarn))
}

// newExecutor returns an executor on d's pool under the suite's protocol.
func newExecutor(t *testing.T, d *db, cfg idem.Config) *idem.Executor {
	t.Helper()
	cfg.Pool = d.pool
	cfg.Protocol = testProtocol()
	exec, err := idem.NewExecutor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return exec
}

// orderHandler serves c on exec with fn.
func orderHandler(t *testing.T, exec *idem.Executor, c idemimpl.Contract, fn idemimpl.BusinessFunc) http.Handler {
	t.Helper()
	h, err := idemimpl.NewHandler(exec, c, tenantScope, fn)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
