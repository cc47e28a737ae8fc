package idemtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// PhasedContractCase is one generated phased operation under test: the
// fields are ContractCase's, for a phased operation.
type PhasedContractCase[T any] struct {
	Operation  idemimpl.Phased[T] // as the generated Routes wires it
	ConnString string
	// Fixture supplies requests and counts effects as for RunContract;
	// its External counts what the operation's external steps made the
	// providers act on, so that the scenarios can tell one charge from
	// two.
	Fixture    Fixture[T]
	Change     func(*T)
	NaturalKey bool
	Encode     func(*T) ([]byte, string, error)
	PathParams func(*T) map[string]string
	Parameters func(*T) (url.Values, http.Header)
	Mount      func(http.Handler) (string, http.Handler)
}

// RunPhasedContract runs a phased operation's contract as subtests of t,
// against PostgreSQL: RunContract's scenarios, then the phased ones,
// which make a process fail at every boundary between its steps (after
// each recovery point is committed, and after each step's work, the calls
// outside the database included, before the next commit) and want one
// answer, one business effect and one external action per operation:
//
//   - crash_between_steps: the attempt stops at the boundary with its
//     lease held; once the lease has run out (the scenario ends it on the
//     database's clock), the client's retry takes the operation over and
//     gets the answer.
//   - takeover_fences_the_paused_attempt: an attempt paused after its
//     first recovery point while its lease runs out; a retry on another
//     executor takes the operation over and answers; the paused attempt,
//     released, commits nothing more and answers 503.
//   - completer_finishes_without_a_client: the attempt stops after its
//     first recovery point and no client retries; the completer
//     (idem.Executor's Maintain runs it) drives the operation to its end,
//     and a later retry replays the answer.
//
// An operation whose external steps pass a key of their own to the
// provider, instead of the step's key, makes the provider act twice and
// fails these scenarios (Fixture.External).
func RunPhasedContract[T any](t *testing.T, c PhasedContractCase[T]) {
	t.Helper()
	if c.Operation.Fingerprint == nil || len(c.Operation.Steps) == 0 {
		t.Fatal("idemtest: RunPhasedContract needs the operation's Fingerprint and steps")
	}
	common := ContractCase[T]{ConnString: c.ConnString, Fixture: c.Fixture, Change: c.Change, NaturalKey: c.NaturalKey,
		Encode: c.Encode, PathParams: c.PathParams, Parameters: c.Parameters, Mount: c.Mount}
	r := startRun(t, common, c.Operation.Contract, func(exec *idem.Executor, contract idemimpl.Contract) (http.Handler, error) {
		op := c.Operation
		op.Contract = contract
		return idemimpl.NewPhasedHandler(exec, op, trustedScope)
	})
	r.runAll(t)
	p := &phasedRun[T]{contractRun: r, steps: c.Operation.Steps}
	t.Run("crash_between_steps", p.crashBetweenSteps)
	t.Run("takeover_fences_the_paused_attempt", p.takeover)
	t.Run("completer_finishes_without_a_client", p.completer)
}

// phasedRun is the state of RunPhasedContract's own scenarios.
type phasedRun[T any] struct {
	*contractRun[T]
	steps []idemimpl.Step[T]
}

// errCrash is the fault that stops an attempt at a boundary.
var errCrash = errors.New("idemtest: the process stops here")

// boundaries are the places between an operation's steps where a process
// can stop: after each recovery point it commits (before the next step
// begins, and before the call of an external step that follows it) and
// before each step after the first (after the call of an external step
// before it), as the fault hooks that stop there.
func (p *phasedRun[T]) boundaries() map[string]func() faults.Hooks {
	out := map[string]func() faults.Hooks{}
	nth := func(n int) func(context.Context, string) error {
		var calls atomic.Int32
		return func(context.Context, string) error {
			if calls.Add(1) == int32(n) {
				return errCrash
			}
			return nil
		}
	}
	points := 0 // recovery points a run commits: one per local step but the last
	for _, s := range p.steps[:len(p.steps)-1] {
		if s.Local != nil {
			points++
		}
	}
	for n := 1; n <= points; n++ {
		out[fmt.Sprintf("after_recovery_point_%d", n)] = func() faults.Hooks { return faults.Hooks{AfterCheckpoint: nth(n)} }
	}
	// AfterClaim runs before each of the attempt's transactions; the ones
	// after the first follow a commit and, before a local step after an
	// external one, that step's call.
	for n := 2; n <= points+1; n++ {
		out[fmt.Sprintf("before_transaction_%d", n)] = func() faults.Hooks { return faults.Hooks{AfterClaim: nth(n)} }
	}
	return out
}

// crashBetweenSteps stops an attempt at every boundary and wants the
// retry, once the lease ran out, to finish the operation once.
func (p *phasedRun[T]) crashBetweenSteps(t *testing.T) {
	for name, hooks := range p.boundaries() {
		t.Run(name, func(t *testing.T) {
			h, _ := p.server(t, p.pool, p.contract, idem.Config{}, hooks())
			scope := freshName(t, "crash")
			key, req := p.freshKey(t), p.fresh(t, scope)
			if first := Serve(h, p.request(t, t.Context(), req, scope, key)); first.Status < 500 {
				t.Fatalf("the attempt that stopped at %s: got %s; want a 5xx", name, describe(first))
			}
			p.endLeases(t)
			retry := Serve(h, p.request(t, t.Context(), req, scope, key))
			wantAccepted(t, "the retry after the stop at "+name, retry, false)
			again := Serve(h, p.request(t, t.Context(), req, scope, key))
			wantAccepted(t, "the retry after that", again, true)
			p.wantOnce(t, scope, "after a stop at "+name+" and the retries")
		})
	}
}

// takeover pauses an attempt after its first recovery point while its
// lease runs out, lets a retry on another executor take the operation
// over and answer, and wants the paused attempt to commit nothing more.
func (p *phasedRun[T]) takeover(t *testing.T) {
	hold := faults.NewHold()
	paused, _ := p.server(t, p.pool, p.contract, idem.Config{}, faults.Hooks{AfterCheckpoint: hold.Hook})
	taker, _ := p.server(t, openPool(t, p.c.ConnString, 2), p.contract, idem.Config{}, faults.Hooks{})
	scope := freshName(t, "takeover")
	key, req := p.freshKey(t), p.fresh(t, scope)
	done := make(chan Response, 1)
	go func() { done <- Serve(paused, p.request(t, context.WithoutCancel(t.Context()), req, scope, key)) }()
	select {
	case <-hold.Reached():
	case r := <-done:
		t.Fatalf("the attempt answered %s before its first recovery point; the operation has none", describe(r))
	}
	p.endLeases(t)
	took := Serve(taker, p.request(t, t.Context(), req, scope, key))
	wantAccepted(t, "the retry that took the operation over", took, false)
	hold.Release()
	if late := <-done; late.Status != http.StatusServiceUnavailable {
		t.Errorf("the paused attempt, released after the takeover: got %s; want 503 (it lost the operation)", describe(late))
	}
	again := Serve(taker, p.request(t, t.Context(), req, scope, key))
	if !isReplay(again) || string(again.Body) != string(took.Body) {
		t.Errorf("a retry after the takeover: got %s; want the taker's answer replayed", describe(again))
	}
	p.wantOnce(t, scope, "after the takeover")
}

// completer stops an attempt after its first recovery point and has the
// completer drive the operation to its end, without a client.
func (p *phasedRun[T]) completer(t *testing.T) {
	if len(p.boundaries()) == 0 {
		t.Skip("the operation commits no recovery point before its answer")
	}
	var once atomic.Bool
	stop := func(context.Context, string) error {
		if once.CompareAndSwap(false, true) {
			return errCrash
		}
		return nil
	}
	h, exec := p.server(t, p.pool, p.contract, idem.Config{}, faults.Hooks{AfterCheckpoint: stop})
	scope := freshName(t, "completer")
	key, req := p.freshKey(t), p.fresh(t, scope)
	if first := Serve(h, p.request(t, t.Context(), req, scope, key)); first.Status < 500 {
		t.Fatalf("the attempt that stopped after its first recovery point: got %s; want a 5xx", describe(first))
	}
	p.endLeases(t)
	res, err := core.Redrive(t.Context(), exec, core.RedriveOptions{})
	if err != nil || res.Completed != 1 {
		t.Fatalf("the completer: %+v, %v; want the operation completed", res, err)
	}
	again := Serve(h, p.request(t, t.Context(), req, scope, key))
	wantAccepted(t, "a retry after the completer", again, true)
	p.wantOnce(t, scope, "after the completer")
}

// endLeases lets every lease run out now, on the database's clock: what
// waiting for them would do, without the wait.
func (p *phasedRun[T]) endLeases(t *testing.T) {
	t.Helper()
	if _, err := p.pool.Exec(t.Context(), `UPDATE idempotency_progress SET lease_until = now() WHERE lease_until > now() AND lease_until < 'infinity'`); err != nil {
		t.Fatalf("idemtest: ending the leases: %v", err)
	}
}

// wantOnce fails unless the scope has one business effect and, when the
// fixture counts them, one external action.
func (p *phasedRun[T]) wantOnce(t *testing.T, scope, when string) {
	t.Helper()
	p.wantEffects(t, scope, 1, when)
	if p.c.Fixture.External == nil {
		return
	}
	n, err := p.c.Fixture.External(t.Context(), p.pool, scope)
	if err != nil {
		t.Fatalf("idemtest: Fixture.External: %v", err)
	}
	if n != 1 {
		t.Errorf("%s: the provider acted %d times, want 1 (an external step must pass its step's key to the provider)", when, n)
	}
}
