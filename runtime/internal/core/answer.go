package core

import (
	"bytes"
	"context"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// answer decides an attempt from the committed record that holds its
// key: a replay of a decided operation, a refusal, or, for an operation
// left in progress after a checkpoint whose lease has run out, a takeover
// that resumes it. A completed operation under replay: current
// (Attempt.Current) is answered by replayCurrent, and its record is not
// cached: the stored outcome is not its replay.
func (e *Executor) answer(ctx context.Context, at *attempt, rec *pgstore.Record, fn Func) (*Result, error) {
	if at.Current == nil {
		e.replays.put(at.Scope, at.Key, rec, e.clock.Now())
	}
	return e.answerFrom(ctx, at, rec, fn)
}

// answerFrom is answer without caching rec: for a record the replay cache
// gave.
func (e *Executor) answerFrom(ctx context.Context, at *attempt, rec *pgstore.Record, fn Func) (*Result, error) {
	opID := formatUUID(rec.OperationID)
	switch {
	case !bytes.Equal(rec.Fingerprint, at.Fingerprint[:]):
		return nil, e.refuse(ctx, at, EventConflict, &RefusalError{Err: ErrFingerprintMismatch})
	case rec.Expired():
		return nil, e.refuse(ctx, at, EventExpired, &RefusalError{Err: ErrExpired, OperationID: opID})
	case rec.State == pgstore.StateRequiresRecovery:
		return nil, e.refuse(ctx, at, EventRequiresRecovery, &RefusalError{Err: ErrRequiresRecovery, OperationID: opID})
	case rec.State == pgstore.StateInProgress && at.Policy.Lease > 0:
		return e.takeOver(ctx, at, opID, fn)
	case rec.State != pgstore.StateCompleted && rec.State != pgstore.StateFailed:
		return nil, e.inProgress(ctx, at, opID)
	}
	if !at.began.IsZero() && rec.CompletedAt.After(at.began) { // completed after this attempt began, on the database's clock
		e.emit(ctx, at, EventWaited, opID, "")
	}
	if at.Current != nil && rec.State == pgstore.StateCompleted {
		return e.replayCurrent(ctx, at, rec, opID)
	}
	e.emit(ctx, at, EventReplay, opID, "")
	return &Result{Outcome: Outcome{Code: rec.Status, Meta: rec.Header, Body: rec.Body}, OperationID: opID, Replayed: true}, nil
}
