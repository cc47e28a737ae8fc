package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// StoredAnswer is the first answer of a completed operation, as a replay
// under replay: current hands it to the operation's Current hook so that
// the service can find what the operation created: by Location, or by an
// id in Body. It is what the record keeps, unchanged by the replay, and
// what support sees (idemgen ops show).
type StoredAnswer struct {
	// Scope is the trusted scope (tenant) of the operation: look the
	// resource up in it only.
	Scope string
	// Key is the idempotency key.
	Key string
	// OperationID is the operation's id, for logs and support.
	OperationID string
	// Status is the stored status, such as 201.
	Status int
	// Header holds the stored headers: Content-Type, the typed headers of
	// the answer and the contract's replay-headers.
	Header http.Header
	// Location is the stored Location header, the created resource's
	// link; "" when the answer kept none.
	Location string
	// Body is the stored body, byte for byte.
	Body []byte
}

// CurrentFunc answers a replay of a completed operation under replay:
// current with the current representation of what it created, as the
// service reads it through tx (read-only, rolled back afterwards) from
// stored and the retried request req (body is its decoded form). An
// error wrapping ErrResourceGone answers 410 resource-gone; a business
// refusal answers its problem; any other error answers 500. Nothing it
// returns is stored.
type CurrentFunc[T any] func(ctx context.Context, tx pgx.Tx, stored *StoredAnswer, req *Request, body *T) (*Response, error)

// erasedCurrent is a CurrentFunc whose body is a *T held in an any.
type erasedCurrent func(ctx context.Context, tx pgx.Tx, stored *StoredAnswer, req *Request, body any) (*Response, error)

// eraseCurrent erases the request type of fn, a CurrentFunc[T] given as
// its func type with P = *T (see erase); nil stays nil. It is kept out of
// line so that the callers do not carry a copy of its closure.
//
//go:noinline
func eraseCurrent[P any](fn func(ctx context.Context, tx pgx.Tx, stored *StoredAnswer, req *Request, body P) (*Response, error)) erasedCurrent {
	if fn == nil {
		return nil
	}
	return func(ctx context.Context, tx pgx.Tx, stored *StoredAnswer, req *Request, body any) (*Response, error) {
		return fn(ctx, tx, stored, req, body.(P))
	}
}

// ErrResourceGone is what a Current hook returns (wrapped or not) when the
// resource the operation created no longer exists: the replay answers 410
// resource-gone with the operation's id. The operation is not run again.
var ErrResourceGone = core.ErrResourceGone

// checkReplay refuses a contract and a hook that disagree: replay: current
// needs a Current hook, and only replay: current runs one.
func checkReplay(c *Contract, hasCurrent bool) error {
	switch {
	case c.ReplayCurrent && !hasCurrent:
		return fmt.Errorf("idem: contract %s: replay current needs a Current hook", c.Operation)
	case !c.ReplayCurrent && hasCurrent:
		return fmt.Errorf("idem: contract %s: a Current hook under replay stored would never run", c.Operation)
	}
	return nil
}

// current returns, for a request whose operation replays current, the
// core.CurrentFunc that runs fn and keeps the response it gave in
// *answer; nil when fn is nil (replay: stored).
func current(h *handler, fn erasedCurrent, req *Request, body any) func(answer **Response) core.CurrentFunc {
	if fn == nil {
		return nil
	}
	return func(answer **Response) core.CurrentFunc {
		return func(ctx context.Context, tx pgx.Tx, s core.Stored) (core.Outcome, error) {
			stored, err := storedAnswer(s)
			if err != nil {
				return core.Outcome{}, err
			}
			resp, err := fn(ctx, tx, stored, req, body)
			if err != nil {
				if errors.Is(err, ErrResourceGone) {
					return core.Outcome{}, err
				}
				rej, ok := h.asRejection(err)
				if !ok {
					return core.Outcome{}, err
				}
				if resp, err = rej.response(); err != nil {
					return core.Outcome{}, err
				}
			}
			if resp == nil || resp.Status < 100 || resp.Status > 999 {
				return core.Outcome{}, errors.New("the Current hook returned no response or an invalid status")
			}
			*answer = resp
			return core.Outcome{Code: resp.Status, Body: resp.Body}, nil
		}
	}
}

// storedAnswer decodes a stored outcome for a Current hook.
func storedAnswer(s core.Stored) (*StoredAnswer, error) {
	res, err := replayed(&core.Result{Outcome: s.Outcome, OperationID: s.OperationID})
	if err != nil {
		return nil, err
	}
	return &StoredAnswer{Scope: s.Scope, Key: s.Key, OperationID: s.OperationID, Status: res.Status, Header: res.Header, Location: res.Header.Get("Location"), Body: res.Body}, nil
}
