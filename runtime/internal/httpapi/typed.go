package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
)

// Typed is a generated operation whose request decodes to a T: the
// generator emits one per annotated operation, with T its typed request
// (parameters and body), and passes it to NewTypedHandler.
type Typed[T any] struct {
	Contract Contract
	// Decode turns the request's parameters and raw body into the typed
	// request, before anything is claimed; errors wrapping ErrInvalidBody
	// answer 400. Nil gives every request a zero T.
	Decode func(req *Request) (*T, error)
	// Fingerprint computes the fingerprint from the typed request without
	// reflection; for the JSON encoding of the same request it equals
	// Contract.Fingerprint.Sum.
	Fingerprint func(body *T, params map[string]string) (fingerprint.Sum, error)
	// NaturalKey renders the entity's natural key from the typed request
	// (canonical JSON of the contract's natural-key fields); nil when the
	// contract declares none. The executor claims the key in the
	// operation's transaction before Run: an entity another operation of
	// the scope already created answers 409 natural-key-exists without
	// running Run.
	NaturalKey func(body *T) (string, error)
	// Run is the business function on the typed request; req carries the
	// raw request. Its Response carries the typed headers in Typed. A
	// business refusal (runtime/idem's Rejection) answers with its problem
	// instead of an error.
	Run func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request, body *T) (*Response, error)
	// Current answers a replay of the completed operation with the
	// current representation of what it created (current.go); required
	// when Contract.ReplayCurrent is set, nil otherwise.
	Current CurrentFunc[T]
}

// NewTypedHandler returns the net/http handler of a generated operation.
// It parses a header key (400 when missing and required, empty, too long
// or malformed) and takes the scope from scope (403 when it fails) before
// it reads a byte of the body, then reads the body up to the fingerprint's
// size limit (413), takes a body key from it, decodes the body once
// into a T, fingerprints that value (so a JSON and a form body of the same
// request are the same operation) and has exec run the operation. A replay
// carries the stored status, body and headers plus Idempotent-Replayed:
// true; under replay: current a replay of a completed operation answers
// what Current reads now instead, with the same header. Errors are
// application/problem+json with the types of
// docs/problems.md; a business error asRejection recognises answers with
// its problem (nil recognises none).
func NewTypedHandler[T any](exec core.Holder, t Typed[T], scope func(*http.Request) (string, error), asRejection AsRejection, opts ...HandlerOption) (http.Handler, error) {
	return NewErasedHandler(exec, Erase(&t), scope, asRejection, opts...)
}

// Erased is a Typed with its request type erased: the body is a *T held
// in an any. Erase builds one; NewErasedHandler serves it. It exists so
// that the handler's logic is compiled once, here, and not in each
// generated package for each operation's request type.
type Erased struct {
	contract    Contract
	decode      func(req *Request) (any, error)
	fingerprint func(body any, params map[string]string) (fingerprint.Sum, error)
	naturalKey  func(body any) (string, error)
	run         func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request, body any) (*Response, error)
	current     erasedCurrent
}

// Erase erases t's request type. Its funcs that are nil stay nil; a nil
// Decode gives every request a new zero T.
//
// Erase itself only hands t's funcs on to erase, instantiated with the
// pointer type *T: every pointer type has the same GC shape, so a
// generated package compiles erase's closures once for all of its
// operations, where instantiating them with T (a struct, a shape of its
// own) compiled them once per operation. It takes and returns pointers so
// that an instance copies no contract.
func Erase[T any](t *Typed[T]) *Erased {
	return erase(&t.Contract, t.Decode, t.Fingerprint, t.NaturalKey, t.Run, t.Current)
}

// erase is Erase on the pointer type P = *T, so that all its instances
// share one GC shape. The closures capture single funcs, so that nothing
// else is copied to the heap.
func erase[P any](
	contract *Contract,
	decode func(req *Request) (P, error),
	fp func(body P, params map[string]string) (fingerprint.Sum, error),
	nk func(body P) (string, error),
	run func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request, body P) (*Response, error),
	cur func(ctx context.Context, tx pgx.Tx, stored *StoredAnswer, req *Request, body P) (*Response, error),
) *Erased {
	e := &Erased{contract: *contract, current: eraseCurrent(cur)}
	if decode != nil {
		e.decode = func(req *Request) (any, error) { return decode(req) }
	} else {
		zero := reflect.TypeFor[P]().Elem()
		e.decode = func(*Request) (any, error) { return reflect.New(zero).Interface(), nil }
	}
	if fp != nil {
		e.fingerprint = func(body any, params map[string]string) (fingerprint.Sum, error) {
			return fp(body.(P), params)
		}
	}
	if nk != nil {
		e.naturalKey = func(body any) (string, error) { return nk(body.(P)) }
	}
	if run != nil {
		e.run = func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request, body any) (*Response, error) {
			return run(ctx, tx, op, req, body.(P))
		}
	}
	return e
}

// NewErasedHandler is NewTypedHandler on an erased operation.
func NewErasedHandler(exec core.Holder, t *Erased, scope func(*http.Request) (string, error), asRejection AsRejection, opts ...HandlerOption) (http.Handler, error) {
	if t.fingerprint == nil || t.run == nil {
		return nil, errors.New("idem: NewTypedHandler needs a fingerprint and a business function")
	}
	h, err := newHandler(exec, t.contract, scope, asRejection, opts)
	if err != nil {
		return nil, err
	}
	if err := checkReplay(&h.contract, t.current != nil); err != nil {
		return nil, err
	}
	h.prepare = func(req *Request) (prepared, error) {
		body, err := t.decode(req)
		if err != nil {
			return prepared{}, err
		}
		sum, err := t.fingerprint(body, req.PathParams)
		if err != nil {
			return prepared{}, bodyError(err)
		}
		run := func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request) (*Response, error) {
			return t.run(ctx, tx, op, req, body)
		}
		var naturalKey string
		if t.naturalKey != nil {
			if naturalKey, err = t.naturalKey(body); err != nil {
				return prepared{}, fmt.Errorf("idem: natural key: %w", err)
			}
			if err := checkNaturalKey(naturalKey); err != nil {
				return prepared{}, err
			}
		}
		return prepared{sum: sum, fn: func(answer **Response) core.Func { return h.business(naturalKey, req, run, answer) },
			current: current(h, t.current, req, body)}, nil
	}
	return h, nil
}

// NewHandler is the raw-body form of NewTypedHandler: the fingerprint is
// the contract's fingerprint.Spec applied to the body bytes, and fn gets
// them undecoded in req.Body. Everything else, from the key to the stored
// response and a business refusal, is NewTypedHandler's.
func NewHandler(exec core.Holder, c Contract, scope func(*http.Request) (string, error), asRejection AsRejection, fn BusinessFunc, opts ...HandlerOption) (http.Handler, error) {
	if fn == nil {
		return nil, errors.New("idem: NewHandler needs a business function")
	}
	spec, method, route := c.Fingerprint, c.Method, c.Route
	return NewTypedHandler(exec, Typed[[]byte]{
		Contract: c,
		Decode:   func(req *Request) (*[]byte, error) { return &req.Body, nil },
		Fingerprint: func(body *[]byte, params map[string]string) (fingerprint.Sum, error) {
			return spec.Sum(fingerprint.Request{Method: method, Route: route, PathParams: params, Body: *body})
		},
		Run: func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request, _ *[]byte) (*Response, error) {
			return fn(ctx, tx, op, req)
		},
	}, scope, asRejection, opts...)
}
