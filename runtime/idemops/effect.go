package idemops

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/idemops/internal/sqlcdb"
)

// Effect is one side effect an operation enqueued (an outbox row).
type Effect struct {
	// Key is the effect's stable key, <operation id>/<effect>/<seq>: what
	// the provider received as its idempotency key, and what Resolve and
	// Retry take.
	Key         string
	OperationID string
	Operation   string // the contract name of the operation that enqueued it
	Scope       string
	// IdempotencyKey is its operation's key in clear, only with
	// Config.ShowKeys; KeyHash is that key as the executor logs it (see
	// Operation.KeyHash).
	IdempotencyKey, KeyHash string
	Name                    string // the effect's name in the contract
	Seq                     int    // its number within the operation, from 1
	OnUnknown               string // retry, verify or halt
	State                   EffectState
	Attempts                int    // attempts since it was enqueued or last retried by support
	LastOutcome, LastError  string // the last attempt's outcome and error
	// LeasedBy is the worker whose lease holds or last held it, until
	// LeaseUntil (zero when no lease is held); FencingToken counts its
	// claims.
	LeasedBy     string
	LeaseUntil   time.Time
	FencingToken int64
	CreatedAt    time.Time
	DueAt        time.Time // when it is (or was) due; while running, the lease's end
	// Payload is what the provider is called with, as Client.Redact shows it,
	// only from Client.Operation.
	Payload string
	// History and Audit are its attempts and support's actions on it, in
	// order, only from Client.Operation.
	History []Attempt
	Audit   []AuditEntry
}

// Attempt is one claim of an effect by a worker under one fencing token.
type Attempt struct {
	// Number counts every attempt since the effect was enqueued, 1 for the
	// first: the Attempt its provider was called with. A support Retry
	// resets the effect's attempt budget (Effect.Attempts), not this
	// count, so its calls continue the numbering.
	Number       int
	FencingToken int64
	Worker       string
	Kind         string // call, verify, verify+call, or none (halted without calling); "" while it runs
	StartedAt    time.Time
	FinishedAt   time.Time // zero while it runs
	Outcome      string    // "" while it runs; lost when its lease ran out
	Error        string
}

// EffectFilter narrows ListEffects.
type EffectFilter struct {
	Filter
	State EffectState // only effects in this state; "" every state
}

// ListEffects lists the effects that match f, oldest first.
func (c *Client) ListEffects(ctx context.Context, f EffectFilter) ([]Effect, error) {
	if err := checkState(f.State, EffectStates()); err != nil {
		return nil, err
	}
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	return c.effects(ctx, sqlcdb.ListEffectsParams{Scope: p.scope, IdempotencyKey: p.key, OperationID: p.id,
		Operation: p.name, OlderThan: p.olderThan, Link: p.link, State: text(string(f.State)), MaxRows: p.limit})
}

// effects runs ListEffects with p.
func (c *Client) effects(ctx context.Context, p sqlcdb.ListEffectsParams) ([]Effect, error) {
	rows, err := c.q.ListEffects(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("idemops: listing effects: %w", err)
	}
	effects := make([]Effect, len(rows))
	for i, r := range rows {
		e := Effect{Key: r.EffectKey, OperationID: r.OperationID, Operation: r.Operation, Scope: r.Scope, Name: r.Effect,
			Seq: int(r.Seq), OnUnknown: r.OnUnknown, State: EffectState(r.State), Attempts: int(r.Attempts),
			LastOutcome: r.LastOutcome, LastError: r.LastError, LeasedBy: r.LeasedBy, LeaseUntil: utc(r.LeaseUntil),
			FencingToken: r.FencingToken, CreatedAt: utc(r.CreatedAt), DueAt: utc(r.AvailableAt), Payload: c.Redact(r.Payload)}
		e.IdempotencyKey, e.KeyHash = c.shownKey(r.Scope, r.IdempotencyKey)
		effects[i] = e
	}
	return effects, nil
}

// history fills in the attempts and audit entries of the effects of
// operation id.
func (c *Client) history(ctx context.Context, id pgtype.UUID, effects []Effect) error {
	if len(effects) == 0 {
		return nil
	}
	bySeq := make(map[int]*Effect, len(effects))
	for i := range effects {
		e := &effects[i]
		e.History, e.Audit = []Attempt{}, []AuditEntry{}
		bySeq[e.Seq] = e
	}
	attempts, err := c.q.ListAttempts(ctx, id)
	if err != nil {
		return fmt.Errorf("idemops: listing attempts: %w", err)
	}
	for _, a := range attempts {
		if e := bySeq[int(a.Seq)]; e != nil {
			e.History = append(e.History, Attempt{Number: int(a.Attempt), FencingToken: a.FencingToken, Worker: a.Worker,
				Kind: a.Kind, StartedAt: utc(a.StartedAt), FinishedAt: utc(a.FinishedAt), Outcome: a.Outcome, Error: a.Error})
		}
	}
	audit, err := c.audit(ctx, sqlcdb.ListAuditParams{OperationID: id, MaxRows: maxRows})
	if err != nil {
		return err
	}
	for i := len(audit) - 1; i >= 0; i-- { // oldest first
		if e := bySeq[audit[i].Seq]; e != nil {
			e.Audit = append(e.Audit, audit[i])
		}
	}
	return nil
}
