package brokertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// waitLimit bounds every wait of the suite for a broker's delivery: a
// failure's limit, far beyond what a case needs on a loaded machine, never
// an assertion on timing.
const waitLimit = 2 * time.Minute

// env is one case's database, consumer and records of what happened.
type env struct {
	t        *testing.T
	pool     *pgxpool.Pool
	consumer *idem.Consumer

	mu       sync.Mutex
	changed  chan struct{}                    // closed and replaced on every change below
	runs     map[string]int                   // handler runs by message id
	outcomes map[string][]idem.MessageOutcome // Deliver's outcomes by message id
	refused  map[string]int                   // Deliver's ErrInvalidMessage by message id
	fail     func(ctx context.Context, id string, run int) error
	// crashBefore and crashAfter name a message whose next delivery
	// crashes: before its commit (the handler's context ends at
	// release), after it (Deliver returned; the ack waits for release,
	// then fails).
	crashBefore, crashAfter string
	crashed                 chan struct{} // closed when a delivery crashed after its commit
	release                 chan struct{} // closed by the case once the consumer's connection is gone
}

// maxIDLength is the longest message id the suite's consumer accepts:
// below RabbitMQ's 255-byte message-id, so an id too long reaches it.
const maxIDLength = 64

// newEnv migrates a database of the test's own, creates the handler's
// table and a consumer whose handler inserts the message's id into it and
// enqueues one effect "notify".
func newEnv(t *testing.T, maxAttempts int) *env {
	t.Helper()
	ctx := t.Context()
	e := &env{t: t, pool: pgtest.Pool(t), changed: make(chan struct{}), runs: map[string]int{},
		outcomes: map[string][]idem.MessageOutcome{}, refused: map[string]int{},
		crashed: make(chan struct{}), release: make(chan struct{})}
	if err := idem.Migrate(ctx, e.pool, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `CREATE TABLE applied (seq bigserial PRIMARY KEY, message_id text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: e.pool})
	if err != nil {
		t.Fatal(err)
	}
	e.consumer, err = idem.NewConsumer(exec, idem.ConsumerConfig{Name: "brokertest", MaxAttempts: maxAttempts,
		Retention: time.Hour, MaxIDLength: maxIDLength, Handler: e.handle})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// handle is the consumer's handler: it counts its run, fails when the
// case says so, and otherwise applies the message and enqueues its effect.
func (e *env) handle(ctx context.Context, tx pgx.Tx, d *idem.Delivery) error {
	id := d.Message.ID
	e.mu.Lock()
	e.runs[id]++
	run, fail := e.runs[id], e.fail
	e.notify()
	e.mu.Unlock()
	if fail != nil {
		if err := fail(ctx, id, run); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO applied (message_id) VALUES ($1)`, id); err != nil {
		return err
	}
	_, err := d.Enqueue(ctx, tx, "notify", "retry", d.Message.Body)
	return err
}

// Deliver is the Deliverer the harness's consumers get: the consumer's
// Deliver, recorded, and crashed before or after its commit when the case
// says so.
func (e *env) Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
	e.mu.Lock()
	before, after := e.crashBefore == m.ID, e.crashAfter == m.ID
	if before {
		e.crashBefore = ""
	}
	if after {
		e.crashAfter = ""
	}
	e.mu.Unlock()
	if before {
		// The process dies in the handler: its transaction ends
		// unfinished, nothing is counted.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-e.release:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	res, err := e.consumer.Deliver(ctx, m)
	e.mu.Lock()
	crash := err == nil && after
	if err == nil {
		e.outcomes[m.ID] = append(e.outcomes[m.ID], res.Outcome)
	}
	if errors.Is(err, idem.ErrInvalidMessage) {
		e.refused[m.ID]++
	}
	e.notify()
	e.mu.Unlock()
	if crash {
		close(e.crashed)
		<-e.release
		return idem.DeliveryResult{}, errors.New("brokertest: crashed after the commit, before the ack")
	}
	return res, err
}

// notify wakes the waits; e.mu is held.
func (e *env) notify() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// waitFor waits until cond, called with e.mu held, holds.
func (e *env) waitFor(what string, cond func() bool) {
	e.t.Helper()
	limit := time.After(waitLimit)
	for {
		e.mu.Lock()
		ok, changed := cond(), e.changed
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-limit:
			e.mu.Lock()
			defer e.mu.Unlock()
			e.t.Fatalf("after %v still waiting for %s; runs %v, outcomes %v", waitLimit, what, e.runs, e.outcomes)
		}
	}
}

// waitAcked waits until each of ids had an outcome to acknowledge.
func (e *env) waitAcked(ids ...string) {
	e.t.Helper()
	e.waitFor(fmt.Sprintf("%d messages acknowledged", len(ids)), func() bool {
		for _, id := range ids {
			if !e.acked(id) {
				return false
			}
		}
		return true
	})
}

// acked says whether id had an outcome to acknowledge; e.mu is held.
func (e *env) acked(id string) bool {
	for _, o := range e.outcomes[id] {
		if o.Ack() {
			return true
		}
	}
	return false
}

// deliveries counts the outcomes recorded; e.mu is held.
func (e *env) deliveries() int {
	n := 0
	for _, os := range e.outcomes {
		n += len(os)
	}
	return n
}

// count runs a query returning one number.
func (e *env) count(sql string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// expect asserts the exact counts of a case: the handler's runs and the
// rows it committed for each id, the effects enqueued in all, the inbox
// rows (one per id, processed when committed), the source the inbox keyed
// them by, and what the broker still holds.
func (e *env) expect(h Harness, runs, applied map[string]int, effects int) {
	e.t.Helper()
	e.mu.Lock()
	for id, want := range runs {
		if got := e.runs[id]; got != want {
			e.t.Errorf("message %s: the handler ran %d times, want %d", id, got, want)
		}
	}
	e.mu.Unlock()
	for id, want := range applied {
		if got := e.count(`SELECT count(*) FROM applied WHERE message_id = $1`, id); got != want {
			e.t.Errorf("message %s: %d changes committed, want %d", id, got, want)
		}
	}
	total := 0
	for _, n := range applied {
		total += n
	}
	if got := e.count(`SELECT count(*) FROM applied`); got != total {
		e.t.Errorf("%d changes committed in all, want %d", got, total)
	}
	if got := e.count(`SELECT count(*) FROM idempotency_outbox WHERE effect = 'notify'`); got != effects {
		e.t.Errorf("%d effects enqueued, want %d", got, effects)
	}
	processed := 0
	for _, n := range applied {
		if n > 0 {
			processed++
		}
	}
	if got := e.count(`SELECT count(*) FROM idempotency_inbox WHERE state = 'processed'`); got != processed {
		e.t.Errorf("%d inbox rows processed, want %d", got, processed)
	}
	if got := e.count(`SELECT count(*) FROM idempotency_inbox`); got != len(applied) {
		e.t.Errorf("%d inbox rows, want %d", got, len(applied))
	}
	if got := e.count(`SELECT count(*) FROM idempotency_inbox WHERE source <> $1`, h.Source()); got != 0 {
		e.t.Errorf("%d inbox rows with another source than %s", got, h.Source())
	}
	if got := h.Unacked(e.t); got != 0 {
		e.t.Errorf("the broker holds %d messages unacknowledged, want 0", got)
	}
}
