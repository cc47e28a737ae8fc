package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

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
	if t.Fingerprint == nil || t.Run == nil {
		return nil, errors.New("idem: NewTypedHandler needs a fingerprint and a business function")
	}
	h, err := newHandler(exec, t.Contract, scope, asRejection, opts)
	if err != nil {
		return nil, err
	}
	if err := checkReplay(&h.contract, t.Current != nil); err != nil {
		return nil, err
	}
	h.prepare = func(req *Request) (prepared, error) {
		body := new(T)
		if t.Decode != nil {
			var err error // per request: prepare runs concurrently
			if body, err = t.Decode(req); err != nil {
				return prepared{}, err
			}
		}
		sum, err := t.Fingerprint(body, req.PathParams)
		if err != nil {
			return prepared{}, bodyError(err)
		}
		run := func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *Request) (*Response, error) {
			return t.Run(ctx, tx, op, req, body)
		}
		var naturalKey string
		if t.NaturalKey != nil {
			if naturalKey, err = t.NaturalKey(body); err != nil {
				return prepared{}, fmt.Errorf("idem: natural key: %w", err)
			}
			if err := checkNaturalKey(naturalKey); err != nil {
				return prepared{}, err
			}
		}
		return prepared{sum: sum, fn: func(answer **Response) core.Func { return h.business(naturalKey, req, run, answer) },
			current: current(h, t.Current, req, body)}, nil
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
