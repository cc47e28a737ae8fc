package idem

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// Typed is a generated operation whose request body decodes to a T: the
// generator emits one per annotated operation and passes it to
// NewTypedHandler.
type Typed[T any] struct {
	Contract Contract
	// Decode turns the raw body into the typed request; errors wrapping
	// ErrInvalidBody answer 400. Nil means the operation takes no body.
	Decode func(req *Request) (*T, error)
	// Fingerprint computes the fingerprint from the typed request without
	// reflection; for the JSON encoding of the same request it equals
	// Contract.Fingerprint.Sum.
	Fingerprint func(body *T, params map[string]string) (fingerprint.Sum, error)
	// NaturalKey renders the entity's natural key from the typed request
	// (canonical JSON of the contract's natural-key fields); nil when the
	// contract declares none. The key is claimed in the operation's
	// transaction before Run: an entity another operation of the scope
	// already created answers 409 natural-key-exists without running Run.
	NaturalKey func(body *T) (string, error)
	// Run is the business function on the typed request; req carries the
	// path parameters and the header. A *Rejection error answers with its
	// problem instead of an error.
	Run func(ctx context.Context, tx pgx.Tx, op *Operation, req *Request, body *T) (*Response, error)
}

// NewTypedHandler returns the net/http handler of a generated operation.
// It behaves as NewHandler, except that the body is decoded once into a T,
// fingerprinted from the typed value (so a JSON and a form body of the same
// request are the same operation), and handed to Run as that value.
func NewTypedHandler[T any](exec *Executor, t Typed[T], scope ScopeFunc, opts ...HandlerOption) (http.Handler, error) {
	if t.Fingerprint == nil || t.Run == nil {
		return nil, errors.New("idem: NewTypedHandler needs a fingerprint and a business function")
	}
	h, err := newHandler(exec, t.Contract, scope, opts)
	if err != nil {
		return nil, err
	}
	h.prepare = func(req *Request) (fingerprint.Sum, BusinessFunc, error) {
		body := new(T)
		if t.Decode != nil {
			var err error // per request: prepare runs concurrently
			if body, err = t.Decode(req); err != nil {
				return fingerprint.Sum{}, nil, err
			}
		}
		sum, err := t.Fingerprint(body, req.PathParams)
		if err != nil {
			return fingerprint.Sum{}, nil, bodyError(err)
		}
		run := func(ctx context.Context, tx pgx.Tx, op *Operation, req *Request) (*Response, error) {
			var res *Response
			err := claimNaturalKey(ctx, tx, op, t.NaturalKey, body)
			if err == nil {
				res, err = t.Run(ctx, tx, op, req, body)
			}
			var rej *Rejection
			if errors.As(err, &rej) {
				return rej.response()
			}
			return res, err
		}
		return sum, run, nil
	}
	return h, nil
}

// Rejection is a business refusal, such as an order for an item out of
// stock. Returned by a typed business function it answers with an RFC 9457
// problem of that status; the business changes are rolled back, and the
// answer is stored and replayed when the status matches the contract's
// StoreFailures (by default none; generated contracts default to 4xx).
// Otherwise the key is freed and a retry runs again.
type Rejection struct {
	Status int
	// Type is a URI that identifies the kind of problem; "" means
	// about:blank.
	Type   string
	Title  string
	Detail string
}

// Error describes the rejection.
func (r *Rejection) Error() string {
	if r.Detail != "" {
		return "idem: rejected: " + r.Title + ": " + r.Detail
	}
	return "idem: rejected: " + r.Title
}

// response renders the rejection as a problem+json response.
func (r *Rejection) response() (*Response, error) {
	if r.Status < 400 || r.Status > 599 {
		return nil, errors.New("idem: a Rejection needs a 4xx or 5xx status")
	}
	typ := r.Type
	if typ == "" {
		typ = "about:blank"
	}
	body, err := json.Marshal(Problem{Type: typ, Title: r.Title, Status: r.Status, Detail: r.Detail})
	if err != nil {
		return nil, err
	}
	return &Response{Status: r.Status, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: body}, nil
}

// claimNaturalKey claims the entity's natural key for op, or returns the
// 409 Rejection that names the operation holding it.
func claimNaturalKey[T any](ctx context.Context, tx pgx.Tx, op *Operation, key func(*T) (string, error), body *T) error {
	if key == nil {
		return nil
	}
	k, err := key(body)
	if err != nil {
		return fmt.Errorf("idem: natural key: %w", err)
	}
	if op.store == nil {
		return errors.New("idem: natural key on an operation the executor did not start")
	}
	holder, err := op.store.ClaimNaturalKey(ctx, tx, pgstore.NaturalKey{Scope: op.Scope, Operation: op.Name, Key: k, OperationID: op.id, At: op.clock.Now()})
	if err != nil || holder == "" {
		return err
	}
	return &Rejection{Status: http.StatusConflict, Type: ProblemNaturalKeyExists, Title: "Entity exists",
		Detail: "Another request of this scope already created this entity, in operation " + holder + "."}
}
