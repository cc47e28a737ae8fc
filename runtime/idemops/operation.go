package idemops

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/idemops/internal/sqlcdb"
)

// Operation is one idempotent operation: its record and what support
// shows of it.
type Operation struct {
	ID    string // the operation id, which problem answers and logs name
	Scope string
	// Name is the operation's contract name (its operationId); for a
	// record written before schema step 4, read off its effects ("" for
	// one that enqueued none).
	Name string
	// Key is the idempotency key in clear, only with Config.ShowKeys.
	Key string
	// KeyHash is the key as the executor logs it (key_hash), "" without
	// Config.KeyHashSecret or once the record is swept.
	KeyHash     string
	State       OperationState
	Status      int       // the stored response's status; 0 while in progress and for a tombstone
	CreatedAt   time.Time // zero once swept
	CompletedAt time.Time // when it was decided, or halted (requires_recovery); zero while in progress
	// ExpiresAt is the end of retention; a tombstone's is the end of its
	// tombstone period.
	ExpiresAt time.Time
	// EffectCount is how many effects it enqueued; EffectsWaiting how
	// many of them wait for a person (requires_recovery or dead).
	EffectCount, EffectsWaiting int
	// Response is the stored response, only from Find and Operation (a
	// tombstone has none).
	Response *Response
	// Progress is where an operation that commits recovery points (a
	// phased one) stands while it is not decided: nil for every other.
	Progress *Progress
	// Request is the request such an operation keeps for the completer
	// until it is decided, redacted, only from Find and Operation: nil for
	// every other.
	Request *Request
	// Effects are its effects with their attempts and audit, only from
	// Operation.
	Effects []Effect
	// Audit is support's actions on the operation itself (Resume,
	// ResolveOperation), oldest first, only from Operation.
	Audit []OperationAuditEntry
}

// Progress is where an operation in progress after a recovery point, or
// halted at one for a person, stands.
type Progress struct {
	// RecoveryPoint is the last recovery point it committed: the step it
	// resumes after ("(begin)" before its first step, for one whose first
	// step is an external call).
	RecoveryPoint string
	Lease         LeaseState
	// LeaseUntil is when the lease runs out, or ran out, by the database's
	// clock; zero while halted (LeaseHalted: it never runs out).
	LeaseUntil time.Time
	// Attempts is how many attempts have held the operation (its fencing
	// token): the first, and every takeover by a retry or the completer.
	Attempts int64
	// ResumedBy is the actor who resumed it after it halted, until its
	// next recovery point: the attempt that takes it over makes the call
	// whose outcome was unknown again, with the same step key.
	ResumedBy string
}

// Response is an operation's stored response, as a retry replays it.
type Response struct {
	Status int
	Header http.Header // the headers kept for replays
	Body   []byte
}

// Filter narrows a list; the zero Filter lists everything, oldest first,
// up to DefaultLimit rows.
type Filter struct {
	Scope       string        // only this scope; "" every scope
	Key         string        // only the operation under this idempotency key, in either form a client sends it
	OperationID string        // only this operation
	Name        string        // only operations of this contract name (known from their effects)
	OlderThan   time.Duration // only what was created at least this long ago, by the database's clock
	// Link is the created resource's link, as its answer's Location gave
	// it (/orders/42) or its last path segments (42, orders/42): only the
	// operation that answered with it, and its effects.
	Link  string
	Limit int // at most this many rows; 0 is DefaultLimit
}

// filterParams are a Filter's query parameters; NULL is no filter.
type filterParams struct {
	scope, key, name, link pgtype.Text
	id                     pgtype.UUID
	olderThan              pgtype.Interval
	limit                  int32
}

// params checks f and returns its query parameters.
func (f Filter) params() (p filterParams, err error) {
	if p.key, err = parseKey(f.Key); err != nil {
		return p, err
	}
	if p.id, err = parseOperationID(f.OperationID); err != nil {
		return p, err
	}
	if p.link, err = parseLink(f.Link); err != nil {
		return p, err
	}
	if f.OlderThan < 0 {
		return p, invalid(fmt.Sprintf("older than %s: want a positive duration", f.OlderThan), nil)
	}
	if p.limit, err = limit(f.Limit); err != nil {
		return p, err
	}
	p.scope, p.name, p.olderThan = text(f.Scope), text(f.Name), interval(f.OlderThan)
	return p, nil
}

// OperationFilter narrows ListOperations.
type OperationFilter struct {
	Filter
	State OperationState // only operations in this state; "" every state
}

// ListOperations lists the operations that match f, oldest first. An
// operation whose record is swept is not listed (Operation still shows
// it by id).
func (c *Client) ListOperations(ctx context.Context, f OperationFilter) ([]Operation, error) {
	if err := checkState(f.State, OperationStates()); err != nil {
		return nil, err
	}
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	return c.operations(ctx, sqlcdb.ListOperationsParams{Scope: p.scope, IdempotencyKey: p.key, OperationID: p.id,
		Operation: p.name, OlderThan: p.olderThan, Link: p.link, State: text(string(f.State)), MaxRows: p.limit})
}

// Find returns the operation under key in scope, with its stored
// response, for a view that answers a client about its own attempt: it
// never reaches another scope, so another scope's key is as unknown as a
// key never sent (ErrNotFound). key is in either form a client sends it;
// scope "" is the empty scope.
func (c *Client) Find(ctx context.Context, scope, key string) (*Operation, error) {
	k, err := parseKey(key)
	if err != nil {
		return nil, err
	}
	if !k.Valid {
		return nil, invalid("Find needs a key", nil)
	}
	ops, err := c.operations(ctx, sqlcdb.ListOperationsParams{WithResponse: true, Scope: pgtype.Text{String: scope, Valid: true},
		IdempotencyKey: k, MaxRows: 1})
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, &opsError{kind: ErrNotFound, msg: "no operation under that key in that scope"}
	}
	return &ops[0], nil
}

// Operation returns the operation id with its stored response, its progress, its effects,
// their attempts, and support's actions on it and on them. An operation whose record is swept but whose
// effects remain is OperationSwept; one with neither is ErrNotFound.
func (c *Client) Operation(ctx context.Context, id string) (*Operation, error) {
	uid, err := parseOperationID(id)
	if err != nil {
		return nil, err
	}
	if !uid.Valid {
		return nil, invalid("Operation needs an operation id", nil)
	}
	ops, err := c.operations(ctx, sqlcdb.ListOperationsParams{WithResponse: true, OperationID: uid, MaxRows: 1})
	if err != nil {
		return nil, err
	}
	effects, err := c.effects(ctx, sqlcdb.ListEffectsParams{OperationID: uid, WithPayload: true, MaxRows: maxRows})
	if err != nil {
		return nil, err
	}
	var op *Operation
	switch {
	case len(ops) == 1:
		op = &ops[0]
	case len(effects) > 0:
		op = &Operation{ID: effects[0].OperationID, Scope: effects[0].Scope, Name: effects[0].Operation, State: OperationSwept,
			EffectCount: len(effects)}
		for _, e := range effects {
			if e.State.waitsForPerson() {
				op.EffectsWaiting++
			}
		}
	default:
		return nil, &opsError{kind: ErrNotFound, msg: fmt.Sprintf("no operation %s (neither a record nor an effect)", id)}
	}
	if err := c.history(ctx, uid, effects); err != nil {
		return nil, err
	}
	op.Effects = effects
	if op.Audit, err = c.operationHistory(ctx, uid); err != nil {
		return nil, err
	}
	return op, nil
}

// operations runs ListOperations with p.
func (c *Client) operations(ctx context.Context, p sqlcdb.ListOperationsParams) ([]Operation, error) {
	rows, err := c.q.ListOperations(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("idemops: listing operations: %w", err)
	}
	ops := make([]Operation, len(rows))
	for i, r := range rows {
		op := Operation{ID: r.OperationID, Scope: r.Scope, Name: r.Operation, State: OperationState(r.State),
			Status: int(r.ResponseStatus), CreatedAt: utc(r.CreatedAt), CompletedAt: utc(r.CompletedAt), ExpiresAt: utc(r.ExpiresAt),
			EffectCount: int(r.Effects), EffectsWaiting: int(r.EffectsWaiting)}
		op.Key, op.KeyHash = c.shownKey(r.Scope, r.IdempotencyKey)
		if r.Lease != "" {
			op.Progress = &Progress{RecoveryPoint: r.RecoveryPoint, Lease: LeaseState(r.Lease), LeaseUntil: utc(r.LeaseUntil),
				Attempts: r.FencingToken, ResumedBy: r.ResumedBy}
		}
		if p.WithResponse {
			op.Request = c.request(r.Request, r.IdempotencyKey)
		}
		if p.WithResponse && r.ResponseStatus != 0 {
			op.Response = &Response{Status: int(r.ResponseStatus), Header: http.Header{}, Body: r.ResponseBody}
			if len(r.ResponseHeaders) > 0 {
				if err := json.Unmarshal(r.ResponseHeaders, &op.Response.Header); err != nil {
					return nil, fmt.Errorf("idemops: operation %s: stored headers: %w", r.OperationID, err)
				}
			}
		}
		ops[i] = op
	}
	return ops, nil
}
