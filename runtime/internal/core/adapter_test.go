package core_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// These tests drive the core through an adapter that is not HTTP: a
// message consumer, the shape of the inbox to come. A message has a
// source (the scope), an id (the key) and a body (fingerprinted whole);
// its handler books the message in a ledger table in the operation's
// transaction and acknowledges it with an outcome of its own making.

// message is one delivery of a broker message.
type message struct {
	Source, ID string
	Body       []byte
	Request    []byte // what the consumer stores for the completer
}

// consumer is the test adapter: it turns a message into an Attempt.
type consumer struct {
	exec   *core.Executor
	policy *core.Policy
}

// handle runs step for m under the consumer's policy.
func (c *consumer) handle(ctx context.Context, m message, step core.Func) (*core.Result, error) {
	return core.Execute(ctx, c.exec, core.Attempt{Policy: c.policy, Scope: m.Source, Key: m.ID,
		Fingerprint: fingerprint.Sum(sha256.Sum256(m.Body)), Request: m.Request}, step)
}

// ack is the outcome the consumer stores for a booked message.
func ack(id string) core.Outcome {
	return core.Outcome{Code: 1, Meta: []byte(`{"acked":true}`), Body: []byte("booked " + id)}
}

// book is a one-step handler: it books the message and completes.
func book(m message, calls *atomic.Int32) core.Func {
	return func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		calls.Add(1)
		if _, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step) VALUES ($1, 'booked')`, m.ID); err != nil {
			return core.Decision{}, err
		}
		return core.Completed(ack(m.ID)), nil
	}
}

// newConsumer migrates a fresh schema (its connection string is returned
// too, for child processes) and returns a consumer on it under protocol.
func newConsumer(t *testing.T, protocol core.Protocol, lease time.Duration) (*consumer, *pgxpool.Pool, string) {
	t.Helper()
	cs := pgtest.ConnString(t)
	pool := openPool(t, cs)
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), `CREATE TABLE ledger (message_id text NOT NULL, step text NOT NULL, state text)`); err != nil {
		t.Fatal(err)
	}
	return consumerOn(t, pool, protocol, lease), pool, cs
}

// consumerOn returns a consumer with an executor of its own on pool.
func consumerOn(t *testing.T, pool *pgxpool.Pool, protocol core.Protocol, lease time.Duration) *consumer {
	t.Helper()
	exec, err := core.New(core.Config{Pool: pool, Protocol: protocol})
	if err != nil {
		t.Fatal(err)
	}
	p := &core.Policy{Operation: "bookPayment", Retention: time.Hour, Tombstone: time.Hour,
		Concurrency: core.ConcurrencyReject, WaitTimeout: time.Second, Lease: lease}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return &consumer{exec: exec, policy: p}
}

func openPool(t *testing.T, cs string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// protocols runs f once per store protocol.
func protocols(t *testing.T, f func(t *testing.T, p core.Protocol)) {
	for _, p := range []core.Protocol{core.ProtocolAdvisory, core.ProtocolClaimFirst} {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			f(t, p)
		})
	}
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(t.Context(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A message is booked once; its redelivery gets the stored outcome back,
// byte for byte, without the handler running.
func TestConsumerClaimCompleteReplay(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, 0)
		m := message{Source: "bank", ID: "msg-1", Body: []byte(`{"amount":100}`)}
		var calls atomic.Int32
		first, err := c.handle(t.Context(), m, book(m, &calls))
		if err != nil {
			t.Fatal(err)
		}
		if first.Replayed || !first.Stored || string(first.Outcome.Body) != "booked msg-1" {
			t.Fatalf("first delivery: %+v", first)
		}
		again, err := c.handle(t.Context(), m, book(m, &calls))
		if err != nil {
			t.Fatal(err)
		}
		if !again.Replayed || again.OperationID != first.OperationID || again.Outcome.Code != 1 ||
			string(again.Outcome.Meta) != `{"acked": true}` || string(again.Outcome.Body) != "booked msg-1" {
			t.Errorf("redelivery: %+v (meta %s), want the stored outcome of %s", again, again.Outcome.Meta, first.OperationID)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("the handler ran %d times, want 1", n)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger`); n != 1 {
			t.Errorf("%d ledger rows, want 1", n)
		}
		other := message{Source: "other-bank", ID: m.ID, Body: m.Body} // another scope: another operation
		if res, err := c.handle(t.Context(), other, book(other, &calls)); err != nil || res.Replayed {
			t.Errorf("the same id from another source: %+v, %v; want a new operation", res, err)
		}
	})
}

// The same id with another body is refused, and the handler never runs.
func TestConsumerFingerprintConflict(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, 0)
		m := message{Source: "bank", ID: "msg-1", Body: []byte(`{"amount":100}`)}
		var calls atomic.Int32
		if _, err := c.handle(t.Context(), m, book(m, &calls)); err != nil {
			t.Fatal(err)
		}
		changed := message{Source: m.Source, ID: m.ID, Body: []byte(`{"amount":999}`)}
		res, err := c.handle(t.Context(), changed, book(changed, &calls))
		var ref *core.RefusalError
		if !errors.As(err, &ref) || !errors.Is(err, core.ErrFingerprintMismatch) || res != nil {
			t.Errorf("changed body: %+v, %v; want ErrFingerprintMismatch", res, err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("the handler ran %d times, want 1", n)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger`); n != 1 {
			t.Errorf("%d ledger rows, want 1", n)
		}
	})
}

// A handler that releases frees the key: nothing is kept and the next
// delivery runs again.
func TestConsumerReleaseFreesTheKey(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, 0)
		m := message{Source: "bank", ID: "msg-1", Body: []byte(`{}`)}
		var calls atomic.Int32
		release := func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
			calls.Add(1)
			if _, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step) VALUES ($1, 'released')`, m.ID); err != nil {
				return core.Decision{}, err
			}
			return core.Released(core.Outcome{Code: 2, Body: []byte("not now")}), nil
		}
		res, err := c.handle(t.Context(), m, release)
		if err != nil || res.Stored || string(res.Outcome.Body) != "not now" {
			t.Fatalf("release: %+v, %v", res, err)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger`) + count(t, pool, `SELECT count(*) FROM idempotency_record`); n != 0 {
			t.Errorf("%d rows kept after a release, want 0", n)
		}
		if res, err := c.handle(t.Context(), m, book(m, &calls)); err != nil || res.Replayed {
			t.Errorf("after a release: %+v, %v; want a new run", res, err)
		}
	})
}

// The child process of TestConsumerResumesAfterACrash reads these.
const (
	childConnEnv     = "CORE_TEST_CHILD_CONN"
	childProtocolEnv = "CORE_TEST_CHILD_PROTOCOL"
)

// charge is the two-step handler of a payment message: step one charges
// (the ledger row "charged") and checkpoints with the charge id as its
// state; step two records the outcome and completes. reached is called
// when step two begins, with the recovery point it resumes from.
func charge(m message, reached func(op *core.Operation)) core.Func {
	return func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		point, state, resumed := op.Resumed()
		if !resumed {
			if _, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step, state) VALUES ($1, 'charged', 'ch_'||$1)`, m.ID); err != nil {
				return core.Decision{}, err
			}
			return core.CheckpointAt("charged", []byte("ch_"+m.ID)), nil
		}
		if point != "charged" {
			return core.Decision{}, fmt.Errorf("resumed from %q, want charged", point)
		}
		reached(op)
		if _, err := tx.Exec(ctx, `INSERT INTO ledger (message_id, step, state) VALUES ($1, 'recorded', $2)`, m.ID, string(state)); err != nil {
			return core.Decision{}, err
		}
		return core.Completed(ack(m.ID)), nil
	}
}

// runChild is the child process's part: it handles the payment message,
// says "checkpointed <operation id>" when step two begins, and blocks
// there until it is killed.
func runChild() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv(childConnEnv))
	if err != nil {
		panic(err)
	}
	protocol := core.ProtocolAdvisory
	if os.Getenv(childProtocolEnv) == core.ProtocolClaimFirst.String() {
		protocol = core.ProtocolClaimFirst
	}
	exec, err := core.New(core.Config{Pool: pool, Protocol: protocol})
	if err != nil {
		panic(err)
	}
	p := &core.Policy{Operation: "bookPayment", Retention: time.Hour, Tombstone: time.Hour,
		Concurrency: core.ConcurrencyReject, WaitTimeout: time.Second, Lease: time.Millisecond}
	c := &consumer{exec: exec, policy: p}
	m := paymentMessage()
	_, err = c.handle(ctx, m, charge(m, func(op *core.Operation) {
		fmt.Println("checkpointed", op.ID)
		for { // the crash: killed here, inside step two, before it commits
			time.Sleep(time.Hour)
		}
	}))
	panic(fmt.Sprintf("the child's attempt ended: %v", err))
}

func paymentMessage() message {
	return message{Source: "bank", ID: "pay-1", Body: []byte(`{"amount":100}`), Request: []byte("the payment")}
}

// A process SIGKILLed after the checkpoint, inside the next step, leaves
// the operation in progress with its recovery point; the redelivery takes
// it over once the lease has run out and resumes from the point: step one
// (the charge) is not run again, step two runs once, and the operation
// keeps its id.
func TestConsumerResumesAfterACrash(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, cs := newConsumer(t, p, time.Millisecond)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childConnEnv+"="+cs, childProtocolEnv+"="+p.String())
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		childOp, ok := strings.CutPrefix(strings.TrimSpace(line), "checkpointed ")
		if err != nil || !ok {
			t.Fatalf("the child said %q (%v), want checkpointed <operation id>", line, err)
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		_ = cmd.Wait()
		// A barrier: the dead child's backend releases the record's row
		// once it notices the closed connection; wait for that by taking
		// the row's lock ourselves, without a timeout. (A retry that came
		// sooner would be refused as in progress under this reject policy.)
		if n := count(t, pool, `WITH l AS (SELECT 1 FROM idempotency_progress FOR UPDATE) SELECT count(*) FROM l`); n != 1 {
			t.Fatalf("%d operations in progress after the crash, want 1", n)
		}
		if n := count(t, pool, `SELECT count(*) FROM idempotency_record AS r JOIN idempotency_progress AS p USING (scope, idempotency_key)
WHERE r.state = 'in_progress' AND p.checkpoint = 'charged' AND p.fencing_token = 1 AND p.request = 'the payment'`); n != 1 {
			t.Fatalf("%d records in progress at the checkpoint after the crash, want 1", n)
		}

		m := paymentMessage()
		var resumedOn string
		res, err := c.handle(t.Context(), m, charge(m, func(op *core.Operation) { resumedOn = op.ID }))
		if err != nil {
			t.Fatal(err)
		}
		if res.Replayed || !res.Stored || res.OperationID != childOp || resumedOn != childOp {
			t.Errorf("the redelivery: %+v resumed on %q; want the child's operation %s resumed and stored", res, resumedOn, childOp)
		}
		var steps string
		if err := pool.QueryRow(t.Context(), `SELECT string_agg(step || ':' || state, ',' ORDER BY step) FROM ledger`).Scan(&steps); err != nil {
			t.Fatal(err)
		}
		if steps != "charged:ch_pay-1,recorded:ch_pay-1" {
			t.Errorf("ledger %s, want one charge and one record carrying the charge's state", steps)
		}
		if n := count(t, pool, `SELECT count(*) FROM idempotency_record WHERE state = 'completed'`); n != 1 {
			t.Errorf("%d records completed, want 1", n)
		}
		if n := count(t, pool, `SELECT count(*) FROM idempotency_progress`); n != 0 {
			t.Errorf("%d operations still in progress, want 0", n)
		}
		again, err := c.handle(t.Context(), m, charge(m, func(*core.Operation) { t.Error("step two ran on a replay") }))
		if err != nil || !again.Replayed || again.OperationID != childOp {
			t.Errorf("the next redelivery: %+v, %v; want a replay of %s", again, err, childOp)
		}
	})
}

// While the lease runs, a redelivery is refused as in progress, naming
// the operation; an attempt that fails after its checkpoint gives its
// lease up, so the next redelivery resumes at once.
func TestConsumerInProgressUntilTheLeaseIsGivenUp(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, time.Hour)
		hold := faults.NewHold()
		core.InstallFaults(c.exec, faults.Hooks{AfterCheckpoint: hold.Hook})
		m := paymentMessage()
		type result struct {
			res *core.Result
			err error
		}
		first := make(chan result, 1)
		go func() {
			res, err := c.handle(t.Context(), m, charge(m, func(*core.Operation) {}))
			first <- result{res, err}
		}()
		<-hold.Reached()
		// Another process (an executor of its own) meets the live lease.
		other := consumerOn(t, pool, p, time.Hour)
		_, err := other.handle(t.Context(), m, charge(m, func(*core.Operation) { t.Error("ran under a live lease") }))
		var ref *core.RefusalError
		if !errors.As(err, &ref) || ref.Err != core.ErrInProgress || ref.OperationID == "" {
			t.Errorf("under a live lease: %v, want ErrInProgress naming the operation", err)
		}
		hold.Release()
		r := <-first
		if r.err != nil || !r.res.Stored {
			t.Fatalf("the first attempt: %+v, %v", r.res, r.err)
		}

		// A failing step two after the checkpoint gives the lease up.
		m2 := message{Source: "bank", ID: "pay-2", Body: []byte(`{}`)}
		failing := func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
			if _, _, resumed := op.Resumed(); !resumed {
				return core.CheckpointAt("charged", nil), nil
			}
			return core.Decision{}, errors.New("the bank is down")
		}
		if _, err := other.handle(t.Context(), m2, failing); err == nil {
			t.Fatal("a failing step two: no error")
		}
		var resumed bool
		res, err := other.handle(t.Context(), m2, func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
			_, _, resumed = op.Resumed()
			return core.Completed(ack(m2.ID)), nil
		})
		if err != nil || !resumed || !res.Stored {
			t.Errorf("after a given-up lease: %+v, %v, resumed %v; want the operation resumed at once", res, err, resumed)
		}
	})
}

// Fencing: an attempt paused after its checkpoint past its lease (a
// barrier, not a sleep), while another process takes the operation over
// and finishes it, can commit nothing when it goes on: its next step is
// refused with ErrFenced and the record keeps the taker's answer.
func TestConsumerZombieIsFenced(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		zombie, pool, _ := newConsumer(t, p, time.Millisecond)
		hold := faults.NewHold()
		core.InstallFaults(zombie.exec, faults.Hooks{AfterCheckpoint: hold.Hook})
		m := paymentMessage()
		var zombieSteps atomic.Int32
		done := make(chan error, 1)
		go func() {
			_, err := zombie.handle(t.Context(), m, charge(m, func(*core.Operation) { zombieSteps.Add(1) }))
			done <- err
		}()
		<-hold.Reached() // checkpointed; its 1 ms lease runs out on the database's clock

		taker := consumerOn(t, pool, p, time.Minute)
		var took string
		res, err := taker.handle(t.Context(), m, charge(m, func(op *core.Operation) { took = op.ID }))
		if err != nil || !res.Stored || took == "" {
			t.Fatalf("the takeover: %+v, %v", res, err)
		}
		hold.Release()
		err = <-done
		if !errors.Is(err, core.ErrFenced) || !errors.Is(err, core.ErrUnavailable) {
			t.Errorf("the zombie's attempt: %v, want ErrFenced (as ErrUnavailable)", err)
		}
		if n := zombieSteps.Load(); n != 0 {
			t.Errorf("the zombie ran step two %d times, want 0", n)
		}
		if n := count(t, pool, `SELECT count(*) FROM ledger WHERE step = 'recorded'`); n != 1 {
			t.Errorf("%d recorded steps, want 1 (the taker's)", n)
		}
		if n := count(t, pool, `SELECT count(*) FROM idempotency_record WHERE state = 'completed'`) +
			count(t, pool, `SELECT count(*) FROM idempotency_progress`); n != 1 {
			t.Errorf("%d completed records and operations in progress, want 1 completed (the taker's) and none in progress", n)
		}
	})
}
