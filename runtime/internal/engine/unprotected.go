package engine

import (
	"context"
	"fmt"
	"time"
)

// unprotected runs fn for a request that sent no key where the contract
// does not require one: in a plain transaction, committed for a 2xx or 3xx
// response and rolled back otherwise, with nothing recorded. The business
// step is the same as a protected operation's.
func (e *Executor) unprotected(ctx context.Context, c *Contract, call Call, op *Operation, fn BusinessFunc) (*Result, error) {
	pc, err := e.acquire(ctx, c, call, time.Now())
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
	resp, err := e.business(ctx, tx, c, call, op, fn)
	if err != nil {
		return nil, err
	}
	if resp.Status >= 200 && resp.Status < 400 {
		if err := inner.Commit(ctx); err != nil {
			return nil, fmt.Errorf("idem: %s: commit: %w", c.Operation, err)
		}
	}
	return &Result{Response: resp, OperationID: op.ID}, nil
}
