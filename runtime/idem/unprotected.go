package idem

import (
	"context"
	"fmt"
)

// unprotected runs fn for a request that sent no key where the contract
// does not require one: in a plain transaction, committed for a 2xx or 3xx
// response and rolled back otherwise, with nothing recorded.
func (e *Executor) unprotected(ctx context.Context, c *Contract, req *Request, fn BusinessFunc) (*Result, error) {
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
	op := &Operation{ID: formatUUID(id), Name: c.Operation, id: id, store: e.store, clock: e.clock}
	resp, err := fn(ctx, tx, op, req)
	if err != nil {
		return nil, fmt.Errorf("idem: %s: %w", c.Operation, err)
	}
	if resp == nil {
		return nil, fmt.Errorf("idem: %s: business function returned no response", c.Operation)
	}
	if resp.Status >= 200 && resp.Status < 400 {
		if err := inner.Commit(ctx); err != nil {
			return nil, fmt.Errorf("idem: %s: commit: %w", c.Operation, err)
		}
	}
	return &Result{Response: resp, OperationID: op.ID}, nil
}
