package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// Replays of the current representation
//
// Under replay: current a retry of a completed operation is answered not
// with the stored outcome but with what the operation created as it is
// now: the Attempt's Current, which the adapter builds from the hook the
// service implements, reads it and renders it. Everything before it is a
// replay's: the record is found in the attempt's scope, a different
// fingerprint is refused (ErrFingerprintMismatch), an expired record is
// refused, and an operation still in progress is waited for. The record
// is never changed: its stored outcome stays what support reads (idemgen
// ops show). A stored failure (Fail) is replayed as stored, since it
// created nothing. The replay cache does not serve such attempts (the
// stored outcome is not their answer), so each reads its record and runs
// Current on the attempt's connection, in a read-only transaction that is
// rolled back: a replay never executes anything.

// CurrentFunc answers a replay of a completed operation with the current
// representation of what it created. tx is a read-only transaction on
// the attempt's connection, rolled back afterwards; stored is the
// operation's stored answer, from which the adapter's hook finds the
// resource (its link, its id in the body). An error wrapping
// ErrResourceGone says the resource no longer exists; any other error
// fails the attempt as a business error would, and nothing is kept.
type CurrentFunc func(ctx context.Context, tx pgx.Tx, stored Stored) (Outcome, error)

// Stored is an operation's stored answer, as a CurrentFunc receives it,
// with the trusted scope and the key it was found under.
type Stored struct {
	Scope       string
	Key         string
	OperationID string
	Outcome     Outcome
	CompletedAt time.Time
}

// ErrResourceGone is the refusal of a replay under replay: current whose
// operation completed, but what it created no longer exists.
// The operation is not run again; its stored answer stays with the record
// for support.
var ErrResourceGone = errors.New("idem: the operation's resource is gone")

// replayCurrent answers a retry of the completed operation rec, under
// replay: current, from at.Current.
func (e *Executor) replayCurrent(ctx context.Context, at *attempt, rec *pgstore.Record, opID string) (*Result, error) {
	tx, err := at.conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, fmt.Errorf("idem: %s: current replay: %w", at.Policy.Operation, err)
	}
	owned := &ownedTx{tx: tx}
	defer func() {
		owned.closed.Store(true)
		rollback(ctx, at.conn) // also after a panic in at.Current, which propagates
	}()
	stored := Stored{Scope: at.Scope, Key: at.Key, OperationID: opID, Outcome: Outcome{Code: rec.Status, Meta: rec.Header, Body: rec.Body}, CompletedAt: rec.CompletedAt}
	out, err := at.Current(ctx, owned, stored)
	switch {
	case errors.Is(err, ErrResourceGone):
		e.emit(ctx, at, EventReplay, opID, "")
		return nil, &RefusalError{Err: ErrResourceGone, OperationID: opID}
	case err != nil:
		return nil, fmt.Errorf("idem: %s: current replay: %w", at.Policy.Operation, &businessError{err})
	}
	e.emit(ctx, at, EventReplay, opID, "")
	return &Result{Outcome: out, OperationID: opID, Replayed: true, Current: true}, nil
}
