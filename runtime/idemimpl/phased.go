package idemimpl

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// Phased is a generated phased operation whose request decodes to a T:
// its contract (with its lease), decoder, typed fingerprint, natural key
// and steps.
type Phased[T any] = httpapi.Phased[T]

// Step is one step of a phased operation: local (in a transaction of its
// own that commits its recovery point) or external (a call outside the
// database with the step's key, under an on-unknown policy).
type Step[T any] = httpapi.Step[T]

// OnUnknown is an external step's policy when its call's outcome is
// unknown.
type OnUnknown = httpapi.OnUnknown

// The on-unknown policies of external steps.
const (
	OnUnknownRetry  = httpapi.OnUnknownRetry
	OnUnknownVerify = httpapi.OnUnknownVerify
	OnUnknownHalt   = httpapi.OnUnknownHalt
)

// NewPhasedHandler returns the net/http handler of a generated phased
// operation, run by exec in the scope scope gives each request; it
// registers the operation with exec's completer (Maintain).
func NewPhasedHandler[T any](exec *idem.Executor, p Phased[T], scope idem.ScopeFunc, opts ...HandlerOption) (http.Handler, error) {
	if exec == nil {
		return nil, errNoExecutor
	}
	return httpapi.NewPhasedHandler(exec, p, scope, asRejection, opts...)
}

// LocalStep is a generated local step named name: run gets the previous
// step's output (a zero In for the first step, or after a step without
// output) and returns its own, which is stored as its JSON encoding with
// the step's recovery point.
func LocalStep[T, In, Out any](name string, run func(ctx context.Context, tx pgx.Tx, op *Operation, req *T, in *In) (*Out, error)) Step[T] {
	return Step[T]{Name: name, Local: func(ctx context.Context, tx pgx.Tx, op *Operation, _ *Request, req *T, in []byte) ([]byte, *Response, error) {
		v, err := decodeState[In](name, in)
		if err != nil {
			return nil, nil, err
		}
		out, err := run(ctx, tx, op, req, v)
		if err != nil {
			return nil, nil, err
		}
		b, err := encodeState(name, out)
		return b, nil, err
	}}
}

// CallStep is a generated external step named name under policy, each
// call bounded by timeout: call gets the step's key (pass it to the
// provider as its idempotency key) and the previous step's output, and
// returns the step's output; verify, for OnUnknownVerify, asks the
// provider whether the call with the key took effect.
func CallStep[T, In, Out any](name string, policy OnUnknown, timeout time.Duration,
	call func(ctx context.Context, op *Operation, key string, req *T, in *In) (*Out, error),
	verify func(ctx context.Context, op *Operation, key string, req *T, in *In) (*Out, bool, error)) Step[T] {
	s := Step[T]{Name: name, OnUnknown: policy, Timeout: timeout}
	s.Call = func(ctx context.Context, op *Operation, key string, _ *Request, req *T, in []byte) ([]byte, error) {
		v, err := decodeState[In](name, in)
		if err != nil {
			return nil, err
		}
		out, err := call(ctx, op, key, req, v)
		if err != nil {
			return nil, err
		}
		return encodeState(name, out)
	}
	if verify != nil {
		s.Verify = func(ctx context.Context, op *Operation, key string, _ *Request, req *T, in []byte) ([]byte, bool, error) {
			v, err := decodeState[In](name, in)
			if err != nil {
				return nil, false, err
			}
			out, done, err := verify(ctx, op, key, req, v)
			if err != nil || !done {
				return nil, false, err
			}
			b, err := encodeState(name, out)
			return b, err == nil, err
		}
	}
	return s
}

// FinalStep is a generated phased operation's last step named name: run
// gets the previous step's output and returns one of the operation's
// documented answers, which render describes to the runtime (as Respond).
func FinalStep[T, In, R any](name string, run func(ctx context.Context, tx pgx.Tx, op *Operation, req *T, in *In) (R, error), render func(R) Answer) Step[T] {
	return Step[T]{Name: name, Local: func(ctx context.Context, tx pgx.Tx, op *Operation, _ *Request, req *T, in []byte) ([]byte, *Response, error) {
		v, err := decodeState[In](name, in)
		if err != nil {
			return nil, nil, err
		}
		res, err := run(ctx, tx, op, req, v)
		resp, err := Respond(op, res, err, render)
		return nil, resp, err
	}}
}

// NoOutput is the input of a step whose previous step hands on nothing,
// and of the first step.
type NoOutput struct{}

// decodeState decodes the output of the step before the step named name;
// nothing stored is In's zero value.
func decodeState[In any](name string, in []byte) (*In, error) {
	v := new(In)
	if len(in) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(in, v); err != nil {
		return nil, fmt.Errorf("step %s: the previous step's stored output: %w", name, err)
	}
	return v, nil
}

// encodeState encodes the output of the step named name; a step whose
// output type is NoOutput stores nothing.
func encodeState[Out any](name string, out *Out) ([]byte, error) {
	if _, none := any(out).(*NoOutput); none {
		return nil, nil
	}
	if out == nil {
		return nil, fmt.Errorf("step %s returned no output", name)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("step %s: its output: %w", name, err)
	}
	return b, nil
}

// BindPhased pairs the phased operation p with where it mounts.
func BindPhased[T any](p Phased[T], mount func(http.Handler) (string, http.Handler)) Binding {
	return Binding{mount: mount, handler: func(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption) (http.Handler, error) {
		return NewPhasedHandler(exec, p, scope, opts...)
	}}
}
