package core

import (
	"context"
	"fmt"
)

// unprotected runs fn for an attempt without a key, where the adapter's
// contract lets one run: in a plain transaction, committed when fn
// completes and rolled back otherwise, with nothing recorded.
func (e *Executor) unprotected(ctx context.Context, at *attempt, fn Func) (*Result, error) {
	leaveShare, err := e.enterShare(ctx, at)
	if err != nil {
		return nil, err
	}
	defer leaveShare()
	pc, err := e.acquire(ctx, at)
	if err != nil {
		return nil, err
	}
	defer pc.Release()
	inner, err := pc.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("idem: %w", err)
	}
	tx := &ownedTx{tx: inner}
	defer func() {
		tx.closed.Store(true)
		_ = inner.Rollback(context.WithoutCancel(ctx)) // a no-op after Commit
	}()
	d, err := e.decide(ctx, at, tx, fn)
	if err != nil {
		return nil, err
	}
	if d.Disposition == Complete {
		if err := inner.Commit(ctx); err != nil {
			return nil, fmt.Errorf("idem: %s: commit: %w", at.Policy.Operation, err)
		}
	}
	return &Result{Outcome: d.Outcome, OperationID: at.op.ID}, nil
}
