package core_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// The consumer's payment, as a phased operation: step one records the
// payment (a recovery point), then the bank is called outside any
// transaction (After) with the step's key, then step two records what
// the bank said.

// bank is a fake external provider that acts once per idempotency key and
// counts what it was sent.
type bank struct {
	mu    sync.Mutex
	calls map[string]int // by key
	acted map[string]bool
	fail  atomic.Bool // the next call's outcome is unknown: it acts, then the answer is lost
}

func newBank() *bank { return &bank{calls: map[string]int{}, acted: map[string]bool{}} }

// charge acts on key once and reports whether this call was a duplicate.
func (b *bank) charge(key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls[key]++
	b.acted[key] = true
	if b.fail.Swap(false) {
		return errors.New("bank: the connection dropped after the request was sent")
	}
	return nil
}

// paymentSteps is the phased handler. halt makes an unknown outcome halt
// the operation instead of failing the attempt (the halt policy).
func paymentSteps(m message, b *bank, halt bool) core.Func {
	var (
		made   bool  // this attempt called the bank
		called error // and the bank's answer, handed to step two
	)
	callBank := func(op *core.Operation) core.Decision {
		d := core.CheckpointAt("recorded", nil)
		key := op.StepKey("charge")
		d.After = func(context.Context) error {
			made, called = true, b.charge(key)
			if called != nil && !halt {
				return called // retry policy: the next attempt calls again, with the same key
			}
			return nil
		}
		return d
	}
	return func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		point, _, _ := op.Resumed()
		switch {
		case point == "":
			if _, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step) VALUES ($1, 'recorded')`, m.ID); err != nil {
				return core.Decision{}, err
			}
			return callBank(op), nil
		case point == "recorded" && !made:
			// Taken over at the call: whether it reached the bank is
			// unknown, so call again with the same key (retry policy).
			return callBank(op), nil
		case point == "recorded":
			if called != nil {
				return core.Halted("charged?", []byte(called.Error())), nil
			}
			if _, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step, state) VALUES ($1, 'approved', $2)`, m.ID, op.StepKey("charge")); err != nil {
				return core.Decision{}, err
			}
			return core.Completed(ack(m.ID)), nil
		}
		return core.Decision{}, fmt.Errorf("unknown recovery point %q", point)
	}
}

// checkOncePerKey fails unless the bank acted on each of n keys once,
// called with each at most twice (the abandoned attempt's call, whose
// outcome nobody knows, and the one that resumed it).
func checkOncePerKey(t *testing.T, b *bank, n int) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.acted) != n {
		t.Errorf("the bank acted on %d keys, want %d", len(b.acted), n)
	}
	for key, calls := range b.calls {
		if calls > 2 {
			t.Errorf("the bank was called %d times with %s, want at most twice", calls, key)
		}
	}
}

// A step key is stable for an operation and a step, compact, and of
// characters a provider takes in a header.
func TestStepKey(t *testing.T) {
	id := [16]byte{1, 2, 3}
	k := core.StepKey(id, "charge")
	if !regexp.MustCompile(`^idem_[0-9a-v]{26}$`).MatchString(k) || len(k) != 31 {
		t.Errorf("StepKey = %q, want idem_ and 26 base-32 digits", k)
	}
	if core.StepKey(id, "charge") != k || core.StepKey(id, "refund") == k || core.StepKey([16]byte{1, 2, 4}, "charge") == k {
		t.Error("StepKey is not a function of the operation and the step alone")
	}
}

// The external call runs after the recovery point is committed and
// outside any transaction; an unknown outcome under the retry policy ends
// the attempt, and the retry calls again with the same step key, which
// the bank recognises.
func TestConsumerCallsOutsideTheTransaction(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, time.Minute)
		b := newBank()
		b.fail.Store(true)
		m := paymentMessage()
		if _, err := c.handle(t.Context(), m, paymentSteps(m, b, false)); err == nil {
			t.Fatal("the call with a lost answer: no error")
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger WHERE step = 'recorded'`); n != 1 {
			t.Fatalf("%d recorded steps after the lost answer, want 1 (committed before the call)", n)
		}
		res, err := c.handle(t.Context(), m, paymentSteps(m, b, false))
		if err != nil || !res.Stored {
			t.Fatalf("the retry: %+v, %v", res, err)
		}
		var key string
		if err := pool.QueryRow(t.Context(), `SELECT state FROM ledger WHERE step = 'approved'`).Scan(&key); err != nil {
			t.Fatal(err)
		}
		if len(b.calls) != 1 || b.calls[key] != 2 {
			t.Errorf("the bank saw %v, want two calls with the one step key %s", b.calls, key)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger WHERE step = 'recorded'`); n != 1 {
			t.Errorf("%d recorded steps after the retry, want 1: step one is not run again", n)
		}
	})
}

// Under the halt policy an unknown outcome stops the operation: the first
// attempt and every retry are refused with ErrRequiresRecovery naming the
// operation, nothing runs again, and the recovery point stays for support.
func TestConsumerHaltsOnAnUnknownOutcome(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, time.Minute)
		b := newBank()
		b.fail.Store(true)
		m := paymentMessage()
		_, err := c.handle(t.Context(), m, paymentSteps(m, b, true))
		var ref *core.RefusalError
		if !errors.As(err, &ref) || ref.Err != core.ErrRequiresRecovery || ref.OperationID == "" {
			t.Fatalf("the halted attempt: %v, want ErrRequiresRecovery with the operation id", err)
		}
		_, err = c.handle(t.Context(), m, paymentSteps(m, b, true))
		var again *core.RefusalError
		if !errors.As(err, &again) || again.Err != core.ErrRequiresRecovery || again.OperationID != ref.OperationID {
			t.Errorf("a retry of the halted operation: %v, want ErrRequiresRecovery naming %s", err, ref.OperationID)
		}
		if len(b.calls) != 1 {
			t.Errorf("the bank saw %v, want one call", b.calls)
		}
		if n := count(t, pool, `SELECT count(*) FROM idempotency_record AS r JOIN idempotency_progress AS p USING (scope, idempotency_key)
WHERE r.state = 'requires_recovery' AND p.checkpoint = 'charged?' AND p.lease_until = 'infinity'`); n != 1 {
			t.Errorf("%d halted operations with their recovery point kept, want 1", n)
		}
	})
}

// The completer drives abandoned operations to their end without a
// client, from the stored request: each is driven once, by one of two
// completers running at once, and a retry afterwards replays.
func TestRedriveFinishesAbandonedOperations(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		// A lease longer than a step and its call, as check requires: the
		// abandoned attempts give theirs up as they fail.
		c, pool, _ := newConsumer(t, p, time.Minute)
		b := newBank()
		const n = 20
		for i := range n {
			m := message{Source: "bank", ID: fmt.Sprintf("pay-%d", i), Body: []byte(`{}`), Request: fmt.Appendf(nil, "pay-%d", i)}
			abandon := func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
				if _, _, resumed := op.Resumed(); resumed {
					return core.Decision{}, errors.New("the process dies here") // its lease is given up at once
				}
				return paymentSteps(m, b, false)(ctx, tx, op)
			}
			if _, err := c.handle(t.Context(), m, abandon); err == nil {
				t.Fatal("the abandoned attempt: no error")
			}
		}
		resume := func(_ context.Context, scope string, request []byte) (*core.Policy, core.Func, error) {
			m := message{Source: scope, ID: string(request), Body: []byte(`{}`)}
			return c.policy, paymentSteps(m, b, false), nil
		}
		opts := core.RedriveOptions{Resumers: map[string]core.Resumer{"bookPayment": resume}}
		// Two completers, each on an executor of its own, at once.
		other := consumerOn(t, pool, p, time.Minute)
		var wg sync.WaitGroup
		results := make([]core.RedriveResult, 2)
		for i, exec := range []*core.Executor{c.exec, other.exec} {
			wg.Go(func() {
				res, err := core.Redrive(t.Context(), exec, opts)
				if err != nil {
					t.Error(err)
				}
				results[i] = res
			})
		}
		wg.Wait()
		if done := results[0].Completed + results[1].Completed; done != n || results[0].Failed+results[1].Failed != 0 {
			t.Errorf("redrives %+v, want %d completed between them", results, n)
		}
		if got := count(t, pool, `SELECT count(*) FROM ledger WHERE step = 'approved'`); got != n {
			t.Errorf("%d payments approved, want %d: each driven once", got, n)
		}
		if got := count(t, pool, `SELECT count(*) FROM idempotency_progress`); got != 0 {
			t.Errorf("%d operations still in progress, want 0", got)
		}
		checkOncePerKey(t, b, n)
		m := message{Source: "bank", ID: "pay-0", Body: []byte(`{}`)}
		if res, err := c.handle(t.Context(), m, paymentSteps(m, b, false)); err != nil || !res.Replayed {
			t.Errorf("a retry after the redrive: %+v, %v; want a replay", res, err)
		}
	})
}

// An operation whose redrives keep failing is halted for a person once
// its attempts run out.
func TestRedriveHaltsAfterMaxAttempts(t *testing.T) {
	c, pool, _ := newConsumer(t, core.ProtocolAdvisory, time.Millisecond)
	m := paymentMessage()
	failing := func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		if _, _, resumed := op.Resumed(); resumed {
			return core.Decision{}, errors.New("still failing")
		}
		return core.CheckpointAt("recorded", nil), nil
	}
	if _, err := c.handle(t.Context(), m, failing); err == nil {
		t.Fatal("no error")
	}
	resume := func(context.Context, string, []byte) (*core.Policy, core.Func, error) { return c.policy, failing, nil }
	opts := core.RedriveOptions{Resumers: map[string]core.Resumer{"bookPayment": resume}, MaxAttempts: 3, Backoff: time.Nanosecond}
	var halted int
	for range 10 {
		res, err := core.Redrive(t.Context(), c.exec, opts)
		if err != nil {
			t.Fatal(err)
		}
		halted += res.Halted
		if count(t, pool, `SELECT count(*) FROM idempotency_record WHERE state = 'requires_recovery'`) == 1 {
			break
		}
		// The backoff (1 ns, doubling) runs out on the database's clock:
		// end it now instead of waiting for it.
		if _, err := pool.Exec(t.Context(), `UPDATE idempotency_progress SET lease_until = now()`); err != nil {
			t.Fatal(err)
		}
	}
	if halted != 1 {
		t.Errorf("%d operations halted, want 1 after its attempts ran out", halted)
	}
	if n := count(t, pool, `SELECT fencing_token FROM idempotency_progress`); n != 4 {
		t.Errorf("halted under token %d, want 4 (three attempts, then the halting takeover)", n)
	}
}
