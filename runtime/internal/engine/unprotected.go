package engine

import (
	"context"
	"fmt"
)

// unprotected runs fn for a request that sent no key where the contract
// does not require one: in a plain transaction, committed for a 2xx or 3xx
// response and rolled back otherwise, with nothing recorded. The business
// step is the same as a protected operation's.
func (e *Executor) unprotected(ctx context.Context, c *Contract, call Call, fn BusinessFunc) (*Result, error) {
	inner, err := e.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("idem: %w", err)
	}
	tx := &ownedTx{tx: inner}
	defer func() {
		tx.closed.Store(true)
		_ = inner.Rollback(context.WithoutCancel(ctx)) // a no-op after Commit
	}()
	id, err := newUUID()
	if err != nil {
		return nil, err
	}
	op := &Operation{ID: formatUUID(id), Name: c.Operation, Scope: call.Scope, id: id, store: e.store, clock: e.clock}
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
