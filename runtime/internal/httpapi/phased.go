package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
)

// Phased is a generated phased operation whose request decodes to a T:
// its steps run in order, each a recovery point, so that an answer that
// depends on a call outside the database (a charge that says approved or
// declined) is found again after a crash instead of being made twice.
type Phased[T any] struct {
	// Contract is the operation's; its Lease is required.
	Contract Contract
	// Decode, Fingerprint and NaturalKey are Typed's: the natural key is
	// claimed in the first step's transaction.
	Decode      func(req *Request) (*T, error)
	Fingerprint func(body *T, params map[string]string) (fingerprint.Sum, error)
	NaturalKey  func(body *T) (string, error)
	// Steps are the operation's steps in order; the last one is local and
	// returns the answer.
	Steps []Step[T]
	// Current is Typed's: the replay of a completed operation under
	// replay: current.
	Current CurrentFunc[T]
}

// OnUnknown is what a phased operation does when the outcome of an
// external step's call is unknown: a time-out, a dropped connection, an
// error after the request was sent, or an attempt that crashed while the
// call may have been under way.
type OnUnknown int

// The policies.
const (
	// OnUnknownRetry calls again with the same step key, which the
	// provider recognises.
	OnUnknownRetry OnUnknown = iota + 1
	// OnUnknownVerify asks the provider (Step.Verify) first and calls
	// again only when it says the call did not take effect.
	OnUnknownVerify
	// OnUnknownHalt stops the operation in requires_recovery for a person
	// to resolve; every retry is answered 409 operation-requires-recovery.
	OnUnknownHalt
)

// Step is one step of a phased operation: a local one (Local), which runs
// in a transaction of its own that commits its recovery point, or an
// external one (Call), which runs outside any transaction between two
// recovery points.
type Step[T any] struct {
	Name string // the recovery point the step commits, stable across releases
	// Local runs the step in its transaction with the previous step's
	// state (nil for the first step) and returns its own state, or, for
	// the last step, the answer. A business refusal (the service's
	// Rejection) answers with its problem.
	Local func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request, body *T, in []byte) (out []byte, answer *Response, err error)
	// Call makes the external step's call with key, the step's key
	// (stable for the operation; pass it to the provider as its
	// idempotency key), and returns the step's state. Any error is an
	// unknown outcome, except a business refusal (the service's
	// Rejection), which answers with its problem.
	Call func(ctx context.Context, op *core.Operation, key string, req *Request, body *T, in []byte) (out []byte, err error)
	// Verify asks the provider whether the call with key took effect,
	// under OnUnknownVerify: done with the state, or not done (then the
	// call is made again); an error leaves the outcome unknown.
	Verify func(ctx context.Context, op *core.Operation, key string, req *Request, body *T, in []byte) (out []byte, done bool, err error)
	// OnUnknown is the external step's policy.
	OnUnknown OnUnknown
	// Timeout bounds one call (and one Verify); it must end inside the
	// lease.
	Timeout time.Duration
}

// beginPoint is the recovery point committed before an external first
// step's call: no step has run yet. Step names are identifiers, so it
// names none.
const beginPoint = "(begin)"

// ErrCallUnknown is wrapped by the error of an attempt that ended with an
// external call's outcome unknown under the retry or verify policy: the
// operation waits at its recovery point, and a retry (or the completer)
// calls again with the same key. It answers 503 with Retry-After.
var ErrCallUnknown = fmt.Errorf("%w: the outcome of an external call is unknown", core.ErrUnavailable)

// NewPhasedHandler returns the net/http handler of a generated phased
// operation: Typed's request path (key, scope, body, decoding,
// fingerprint), then the steps, each committing its recovery point, and
// the last one's answer stored and replayed. It registers the operation's
// resumer with the executor, so that the completer (idem.Executor's
// Maintain) drives operations abandoned by a crash to their end from the
// stored request.
func NewPhasedHandler[T any](exec core.Holder, p Phased[T], scope func(*http.Request) (string, error), asRejection AsRejection, opts ...HandlerOption) (http.Handler, error) {
	if p.Fingerprint == nil || len(p.Steps) == 0 {
		return nil, errors.New("idem: NewPhasedHandler needs a fingerprint and steps")
	}
	if err := checkSteps(p.Steps, p.Contract.Lease); err != nil {
		return nil, fmt.Errorf("idem: contract %s: %w", p.Contract.Operation, err)
	}
	h, err := newHandler(exec, p.Contract, scope, asRejection, opts)
	if err != nil {
		return nil, err
	}
	if h.policy.Lease <= 0 {
		return nil, fmt.Errorf("idem: contract %s: a phased operation needs a lease", p.Contract.Operation)
	}
	if err := checkReplay(&h.contract, p.Current != nil); err != nil {
		return nil, err
	}
	prepare := func(req *Request) (*T, string, error) {
		body := new(T)
		if p.Decode != nil {
			var err error
			if body, err = p.Decode(req); err != nil {
				return nil, "", err
			}
		}
		var nk string
		if p.NaturalKey != nil {
			var err error
			if nk, err = p.NaturalKey(body); err != nil {
				return nil, "", fmt.Errorf("idem: natural key: %w", err)
			}
			if err := checkNaturalKey(nk); err != nil {
				return nil, "", err
			}
		}
		return body, nk, nil
	}
	h.prepare = func(req *Request) (prepared, error) {
		body, nk, err := prepare(req)
		if err != nil {
			return prepared{}, err
		}
		sum, err := p.Fingerprint(body, req.PathParams)
		if err != nil {
			return prepared{}, bodyError(err)
		}
		stored, err := encodeRequest(req)
		if err != nil {
			return prepared{}, err
		}
		return prepared{sum: sum, request: stored, fn: func(answer **Response) core.Func {
			return phasedFunc(h, p.Steps, nk, req, body, answer)
		}, current: current(h, eraseCurrent(p.Current), req, body)}, nil
	}
	err = core.RegisterResumer(exec, h.policy.Operation, func(_ context.Context, _ string, stored []byte) (*core.Policy, core.Func, error) {
		req, err := decodeRequest(stored)
		if err != nil {
			return nil, nil, err
		}
		body, nk, err := prepare(req)
		if err != nil {
			return nil, nil, err
		}
		var answer *Response
		return h.policy, phasedFunc(h, p.Steps, nk, req, body, &answer), nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// checkSteps refuses steps the driver cannot run.
func checkSteps[T any](steps []Step[T], lease time.Duration) error {
	seen := map[string]bool{}
	for i, s := range steps {
		switch {
		case s.Name == "" || s.Name == beginPoint || seen[s.Name]:
			return fmt.Errorf("step %d: a name of its own is required", i+1)
		case (s.Local == nil) == (s.Call == nil):
			return fmt.Errorf("step %s: exactly one of Local and Call", s.Name)
		case s.Call != nil && (s.OnUnknown < OnUnknownRetry || s.OnUnknown > OnUnknownHalt):
			return fmt.Errorf("step %s: an external step needs its on-unknown policy", s.Name)
		case s.Call != nil && s.OnUnknown == OnUnknownVerify && s.Verify == nil:
			return fmt.Errorf("step %s: on-unknown verify needs Verify", s.Name)
		case s.Call != nil && (s.Timeout <= 0 || s.Timeout >= lease):
			return fmt.Errorf("step %s: its timeout %s must be positive and shorter than the lease %s", s.Name, s.Timeout, lease)
		case i == len(steps)-1 && s.Local == nil:
			return fmt.Errorf("step %s: the last step must be local: it records the answer", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// drive is what one attempt of a phased operation carries from one step's
// transaction to the next: the result of the call its After made.
type drive struct {
	first  bool    // the attempt has not run a step yet
	called *called // the call made since the last recovery point, if any
}

// called is the outcome of an external step's call.
type called struct {
	step      int
	out       []byte
	rejection *Response // a business refusal's problem
	halt      bool      // unknown under OnUnknownHalt
}

// phasedFunc is the core.Func of one attempt of a phased operation. Each
// of its runs is one transaction: it takes the call made since the last
// recovery point into account, then runs the next local step and commits
// its recovery point (or, for the last step, the answer), or, before an
// external step, commits the recovery point reached and makes the call
// after the commit, outside any transaction (core.Decision.After).
func phasedFunc[T any](h *handler, steps []Step[T], naturalKey string, req *Request, body *T, answer **Response) core.Func {
	d := &drive{first: true}
	c := &h.contract
	respond := func(resp *Response) (core.Decision, error) {
		*answer = resp
		return c.decide(resp)
	}
	return func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		first := d.first
		d.first = false
		point, in, resumed := op.Resumed()
		i := 0
		if resumed && point != beginPoint {
			i = stepIndex(steps, point) + 1
			if i == 0 {
				return core.Decision{}, fmt.Errorf("resumed from %q, which is no step of the operation", point)
			}
		}
		if !resumed && naturalKey != "" {
			holder, err := op.ClaimNaturalKey(ctx, tx, naturalKey)
			if err != nil {
				return core.Decision{}, err
			}
			if holder != "" {
				resp, err := naturalKeyExists(holder).response()
				if err != nil {
					return core.Decision{}, err
				}
				return respond(resp)
			}
		}
		if got := d.called; got != nil && got.step == i {
			d.called = nil
			switch {
			case got.halt:
				return core.Halted(pointBefore(steps, i), in), nil
			case got.rejection != nil:
				return respond(got.rejection)
			}
			in, i = got.out, i+1
		} else if i < len(steps) && steps[i].Call != nil && resumed && first {
			// Taken over before an external step: the attempt that held
			// the operation may have made the call, so its outcome is
			// unknown (unless a person who checked with the provider
			// resumed the operation: then the call is made again).
			if steps[i].OnUnknown == OnUnknownHalt && !op.ResumedBySupport() {
				return core.Halted(pointBefore(steps, i), in), nil
			}
			return callStep(h, d, steps, i, op, req, body, in, steps[i].OnUnknown == OnUnknownVerify), nil
		}
		if i == len(steps) {
			return core.Decision{}, errors.New("every step ran, and the last gave no answer")
		}
		s := steps[i]
		if s.Call != nil {
			return callStep(h, d, steps, i, op, req, body, in, false), nil
		}
		out, resp, err := s.Local(ctx, tx, op, req, body, in)
		if err != nil {
			if rej, ok := h.asRejection(err); ok {
				resp, err := rej.response()
				if err != nil {
					return core.Decision{}, err
				}
				return respond(resp)
			}
			return core.Decision{}, err
		}
		switch {
		case i == len(steps)-1:
			if resp == nil || resp.Status < 100 || resp.Status > 999 {
				return core.Decision{}, fmt.Errorf("the last step %s returned no answer or an invalid status", s.Name)
			}
			return respond(resp)
		case steps[i+1].Call != nil:
			// The step's recovery point is the one before the call: the
			// call follows its commit.
			return callStep(h, d, steps, i+1, op, req, body, out, false), nil
		}
		return core.CheckpointAt(s.Name, out), nil
	}
}

// callStep commits the recovery point before the external step i and
// makes its call after the commit, under the step's policy for an unknown
// outcome; verifyFirst asks the provider before calling (a takeover under
// OnUnknownVerify).
func callStep[T any](h *handler, d *drive, steps []Step[T], i int, op *core.Operation, req *Request, body *T, in []byte, verifyFirst bool) core.Decision {
	s := steps[i]
	key := op.StepKey(s.Name)
	dec := core.CheckpointAt(pointBefore(steps, i), in)
	dec.After = func(ctx context.Context) error {
		if verifyFirst {
			out, done, err := verify(ctx, s, op, key, req, body, in)
			switch {
			case err != nil:
				return fmt.Errorf("%w: step %s: verify: %w", ErrCallUnknown, s.Name, err)
			case done:
				d.called = &called{step: i, out: out}
				return nil
			}
		}
		cctx, cancel := context.WithTimeout(ctx, s.Timeout)
		out, err := s.Call(cctx, op, key, req, body, in)
		cancel()
		if err == nil {
			d.called = &called{step: i, out: out}
			return nil
		}
		if rej, ok := h.asRejection(err); ok {
			resp, rerr := rej.response()
			if rerr != nil {
				return rerr
			}
			d.called = &called{step: i, rejection: resp}
			return nil
		}
		switch s.OnUnknown {
		case OnUnknownHalt:
			d.called = &called{step: i, halt: true}
			return nil
		case OnUnknownVerify:
			out, done, verr := verify(ctx, s, op, key, req, body, in)
			if verr == nil && done {
				d.called = &called{step: i, out: out}
				return nil
			}
			if verr == nil {
				err = fmt.Errorf("%w (the provider says it did not take effect; the next attempt calls again)", err)
			}
		}
		return fmt.Errorf("%w: step %s: %w", ErrCallUnknown, s.Name, err)
	}
	return dec
}

// verify asks the provider whether the call with key took effect, within
// the step's timeout.
func verify[T any](ctx context.Context, s Step[T], op *core.Operation, key string, req *Request, body *T, in []byte) ([]byte, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	return s.Verify(ctx, op, key, req, body, in)
}

// pointBefore is the recovery point an operation has reached before step
// i: the step before it, or beginPoint before the first.
func pointBefore[T any](steps []Step[T], i int) string {
	if i == 0 {
		return beginPoint
	}
	return steps[i-1].Name
}

// stepIndex is the index of the step named name, -1 for none.
func stepIndex[T any](steps []Step[T], name string) int {
	for i, s := range steps {
		if s.Name == name {
			return i
		}
	}
	return -1
}
