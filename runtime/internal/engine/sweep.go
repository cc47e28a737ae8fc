package engine

import (
	"context"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// Sweep applies retention at the executor's clock: records past retention
// become tombstones (their stored responses are dropped) and records past
// the tombstone period are deleted, in batches of batchSize rows, each its
// own short statement that skips rows a running operation holds.
// Correctness never depends on it having run, since the executor compares
// deadlines with its clock itself.
func Sweep(ctx context.Context, h Holder, batchSize int) (pgstore.SweepResult, error) {
	e := Of(h)
	return e.store.Sweep(ctx, e.pool, e.clock.Now(), batchSize)
}
