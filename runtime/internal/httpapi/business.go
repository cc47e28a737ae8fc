package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// business is the HTTP adapter's core.Func for one request, the same on
// every path (typed or raw body, protected or not): claim the entity's
// natural key when the request has one, then run fn, turn a business
// refusal into its problem response, and decide from the response's
// status what the executor keeps (decide). An entity another operation of
// the scope already created answers 409 natural-key-exists without running
// fn. The last response fn gave, with every header it set, is kept in
// *answer for the first answer; the decision holds what a replay sends.
func (h *handler) business(naturalKey string, req *Request, fn BusinessFunc, answer **Response) core.Func {
	c := &h.contract
	return func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
		resp, err := h.respond(ctx, tx, op, naturalKey, req, fn)
		if err != nil {
			return core.Decision{}, err
		}
		*answer = resp
		return c.decide(resp)
	}
}

// respond runs one request's business step and returns its response.
func (h *handler) respond(ctx context.Context, tx pgx.Tx, op *core.Operation, naturalKey string, req *Request, fn BusinessFunc) (*Response, error) {
	if naturalKey != "" {
		holder, err := op.ClaimNaturalKey(ctx, tx, naturalKey)
		if err != nil {
			return nil, err
		}
		if holder != "" {
			return naturalKeyExists(holder).response()
		}
	}
	resp, err := fn(ctx, tx, op, req)
	if err != nil {
		if rej, ok := h.asRejection(err); ok {
			return rej.response()
		}
		return nil, err
	}
	if resp == nil || resp.Status < 100 || resp.Status > 999 {
		return nil, errors.New("business function returned no response or an invalid status")
	}
	return resp, nil
}

// decide turns a response into the executor's decision: a 2xx or 3xx
// completes the operation, a status the contract's store-failures match
// fails it, stored, and any other releases the key.
func (c *Contract) decide(resp *Response) (core.Decision, error) {
	meta, err := storedHeader(resp, c.ReplayHeaders)
	if err != nil {
		return core.Decision{}, err
	}
	out := core.Outcome{Code: resp.Status, Meta: meta, Body: resp.Body}
	switch {
	case resp.Status >= 200 && resp.Status < 400:
		return core.Completed(out), nil
	case c.storesFailure(resp.Status):
		return core.Failed(out), nil
	}
	return core.Released(out), nil
}

// storedHeader encodes the headers of resp kept for replays: Content-Type,
// the response's typed headers and the contract's ReplayHeaders.
func storedHeader(resp *Response, replay []string) ([]byte, error) {
	kept := http.Header{}
	names := append(append([]string{"Content-Type"}, resp.Typed...), replay...)
	for _, name := range names {
		if v := resp.Header.Values(name); len(v) > 0 {
			kept[http.CanonicalHeaderKey(name)] = v
		}
	}
	return json.Marshal(kept)
}

// replayed is the response a replay sends: the stored status, body and
// kept headers.
func replayed(res *core.Result) (*Response, error) {
	header := http.Header{}
	if len(res.Outcome.Meta) > 0 {
		if err := json.Unmarshal(res.Outcome.Meta, &header); err != nil {
			return nil, fmt.Errorf("idem: stored header of operation %s: %w", res.OperationID, err)
		}
	}
	return &Response{Status: res.Outcome.Code, Header: header, Body: res.Outcome.Body}, nil
}

// naturalKeyExists is the refusal of a second entity with a natural key
// operation holder already claimed.
func naturalKeyExists(holder string) Rejection {
	return Rejection{Status: http.StatusConflict, Type: ProblemNaturalKeyExists, Title: "Entity exists",
		Detail: "Another request of this scope already created this entity, in operation " + holder + "."}
}
