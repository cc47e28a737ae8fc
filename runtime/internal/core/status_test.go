package core_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// Status follows the record, in its scope and for its operation only: an
// attempt running (seen under the advisory protocol, not yet under
// claim-first), completed with its outcome, halted for support with its
// operation id; another scope's key and another operation's read as
// unknown, like a key never sent.
func TestStatusFollowsTheRecord(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, _, _ := newConsumer(t, p, time.Minute)
		status := func(scope, key string) core.AttemptStatus {
			t.Helper()
			st, err := core.Status(t.Context(), c.exec, core.Lookup{Operation: c.policy.Operation, Scope: scope, Key: key})
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		unknown := core.AttemptStatus{State: core.AttemptUnknown}
		if st := status("bank", "never-sent"); !reflect.DeepEqual(st, unknown) {
			t.Errorf("a key never sent: %+v", st)
		}

		m := message{Source: "bank", ID: "held", Body: []byte(`{}`)}
		reached, release := make(chan struct{}), make(chan struct{})
		done := make(chan error)
		go func() {
			_, err := c.handle(context.Background(), m, func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
				close(reached)
				<-release
				return core.Completed(ack(m.ID)), nil
			})
			done <- err
		}()
		<-reached
		running := status("bank", "held")
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		want := core.AttemptInProgress
		if p == core.ProtocolClaimFirst {
			want = core.AttemptUnknown // the claim is not committed before the attempt ends
		}
		if running.State != want {
			t.Errorf("while the attempt runs: %+v, want %s", running, want)
		}
		done1 := status("bank", "held")
		// The meta document is stored as jsonb, which spaces it anew: a
		// replay gets the same.
		if out := ack(m.ID); done1.State != core.AttemptCompleted || done1.OperationID == "" || done1.Outcome == nil ||
			done1.Outcome.Code != out.Code || string(done1.Outcome.Body) != string(out.Body) {
			t.Errorf("once completed: %+v %+v, want completed with %+v", done1, done1.Outcome, out)
		}
		if st := status("other-bank", "held"); !reflect.DeepEqual(st, unknown) {
			t.Errorf("another scope's key: %+v", st)
		}
		other, err := core.Status(t.Context(), c.exec, core.Lookup{Operation: "refund", Scope: "bank", Key: "held"})
		if err != nil || !reflect.DeepEqual(other, unknown) {
			t.Errorf("another operation's key: %+v, %v", other, err)
		}

		b := newBank()
		b.fail.Store(true)
		pay := paymentMessage()
		_, err = c.handle(t.Context(), pay, paymentSteps(pay, b, true))
		var ref *core.RefusalError
		if !errors.As(err, &ref) || ref.Err != core.ErrRequiresRecovery {
			t.Fatalf("the halted payment: %v", err)
		}
		halted := core.AttemptStatus{State: core.AttemptRequiresRecovery, OperationID: ref.OperationID}
		if st := status("bank", pay.ID); !reflect.DeepEqual(st, halted) {
			t.Errorf("a halted operation: %+v, want %+v", st, halted)
		}
	})
}

// Status runs nothing: a key looked up, unknown, is then claimed by its
// first attempt as new.
func TestStatusRunsNothing(t *testing.T) {
	c, _, _ := newConsumer(t, core.ProtocolAdvisory, 0)
	if _, err := core.Status(t.Context(), c.exec, core.Lookup{Operation: c.policy.Operation, Scope: "bank", Key: "m"}); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	m := message{Source: "bank", ID: "m", Body: []byte(`{}`)}
	res, err := c.handle(t.Context(), m, book(m, &calls))
	if err != nil || res.Replayed || calls.Load() != 1 {
		t.Fatalf("the first attempt after a lookup: %+v %v, %d calls; want it run once, not replayed", res, err, calls.Load())
	}
}
