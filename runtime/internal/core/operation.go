package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// Operation identifies the running operation to its Func; generated
// operation handles hold it, unexported, behind their typed effect
// enqueuers.
type Operation struct {
	ID    string // a UUID the runtime generated for the operation, for logs and support; kept by a takeover
	Name  string // the policy's operation name
	Scope string // the trusted scope the key lives in
	Key   string // the idempotency key; "" when the attempt runs unprotected

	id       [16]byte
	store    *pgstore.Store
	enqueued []string // the names of the effects Enqueue wrote since the last commit, for EventEffectEnqueued
	point    string   // the last recovery point committed, "" before the first
	state    []byte
	request  []byte // the stored request: the attempt's own, or what a takeover read
	trace    string // the trace context of this attempt's request, stored with its effects and first recovery point
	// supportResumed: a person resumed the operation after it halted, and
	// it reached no recovery point since.
	supportResumed bool
}

// ResumedBySupport reports that this attempt took over an operation a
// person resumed (idemgen ops resume) after it halted on an unknown
// outcome, and that it has committed no recovery point since: the person
// has checked with the provider, so the call whose outcome was unknown is
// made again instead of halting again.
func (o *Operation) ResumedBySupport() bool { return o.supportResumed }

// Request returns the request the operation was started with, as its
// adapter encoded it in Attempt.Request: the attempt's own, or, for an
// attempt that took a crashed one's operation over (a client's retry or
// the completer), the one stored with its first checkpoint.
func (o *Operation) Request() []byte { return o.request }

// StepKey returns the key of the step named step of this operation:
// stable across attempts and takeovers (derived from the operation id and
// the step's name), so a provider that receives it as its idempotency key
// recognises a repeated call. It is 31 characters of [0-9a-z_] ("idem_"
// and 26 base-32 digits of a SHA-256), within every provider's limit seen
// (Square's 45, Adyen's 64) and free of characters a header or a URL
// would need to escape.
func (o *Operation) StepKey(step string) string { return StepKey(o.id, step) }

// Resumed returns the last recovery point the operation committed and its
// state: the point this attempt checkpointed last, or, for an attempt that
// took a crashed one's operation over, the point that attempt reached.
// ok is false before the first checkpoint.
func (o *Operation) Resumed() (point string, state []byte, ok bool) {
	return o.point, o.state, o.point != ""
}

// Effect is a side effect of an operation, executed later through the
// outbox.
type Effect struct {
	// Name is the effect's name in the contract, such as confirmation_email.
	Name string
	// OnUnknown is the contract's policy when the effect's outcome is
	// unknown: retry, verify or halt.
	OnUnknown string
	// Payload is what the effect handler needs, usually JSON.
	Payload []byte
}

// Enqueue writes e to the outbox through tx, the transaction the Func was
// given, so the effect exists exactly when the step commits. It returns
// the effect's key, stable across retries, for the effect handler to pass
// on to the provider.
func (o *Operation) Enqueue(ctx context.Context, tx pgx.Tx, e Effect) (string, error) {
	if o.store == nil {
		return "", errors.New("idem: Enqueue on an operation the executor did not start")
	}
	key, err := o.store.Enqueue(ctx, tx, pgstore.Effect{Scope: o.Scope, OperationID: o.id, Operation: o.Name, Name: e.Name,
		OnUnknown: e.OnUnknown, Payload: e.Payload, TraceContext: o.trace})
	if err == nil {
		o.enqueued = append(o.enqueued, e.Name)
	}
	return key, err
}

// ClaimNaturalKey claims the entity's natural key (the canonical JSON of
// the contract's natural-key fields) for this operation through tx, in the
// operation's scope and name. It returns "" when the claim succeeded, and
// otherwise the id of the operation that already created the entity. A
// concurrent claim of the same key waits until the holder's transaction
// ends.
func (o *Operation) ClaimNaturalKey(ctx context.Context, tx pgx.Tx, key string) (holder string, err error) {
	if o.store == nil {
		return "", errors.New("idem: ClaimNaturalKey on an operation the executor did not start")
	}
	holder, err = o.store.ClaimNaturalKey(ctx, tx, pgstore.NaturalKey{Scope: o.Scope, Operation: o.Name,
		Key: key, OperationID: o.id})
	if err != nil {
		return "", fmt.Errorf("idem: %s: %w", o.Name, err)
	}
	return holder, nil
}

// Func runs one step of an operation inside the executor's transaction
// and decides how it ends. tx also holds the claim (and, after a
// checkpoint, the record's row): what the Func does through it commits or
// rolls back with the decision. tx.Begin opens a savepoint; tx.Commit and
// tx.Rollback fail with ErrTxOwnedByExecutor. Returning an error rolls the
// step back and frees the key (after a checkpoint: leaves the operation
// to a retry).
type Func func(ctx context.Context, tx pgx.Tx, op *Operation) (Decision, error)
