package idem

import (
	"context"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// Sweep applies retention at the executor's clock: records past retention
// become tombstones (their stored responses are dropped) and records past
// the tombstone period are deleted, in batches of batchSize rows, each its
// own short statement that skips rows a running operation holds. Run it
// periodically; correctness never depends on it having run, since Do
// compares deadlines with the clock itself.
func (e *Executor) Sweep(ctx context.Context, batchSize int) (pgstore.SweepResult, error) {
	return e.store.Sweep(ctx, e.pool, e.clock.Now(), batchSize)
}
