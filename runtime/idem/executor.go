package idem

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/engine"
)

// Config configures an Executor.
type Config struct {
	Pool     *pgxpool.Pool // required
	Schema   string        // schema of the idempotency tables; "" follows the search_path
	Clock    Clock         // nil means SystemClock
	Observer Observer      // optional
	Logger   *slog.Logger  // optional; keys are logged as hashes, never in clear
}

// engineExecutor names the runtime's executor for embedding: an embedded
// field of an unexported name, so a service cannot reach it.
type engineExecutor = engine.Executor

// Executor runs idempotent operations in atomic mode: one transaction
// claims the key, runs the business method, stores the response and
// commits. It is safe for concurrent use; a service builds one and passes
// it to the generated Register or Routes.
type Executor struct {
	*engineExecutor
}

// NewExecutor returns an Executor for cfg.
func NewExecutor(cfg Config) (*Executor, error) {
	ec := engine.Config{Pool: cfg.Pool, Schema: cfg.Schema, Clock: cfg.Clock, Logger: cfg.Logger, AsRejection: asRejection}
	if o := cfg.Observer; o != nil {
		ec.Observe = func(ev engine.Event) {
			o.Observe(Event{Kind: EventKind(ev.Kind), Operation: ev.Operation, Duration: ev.Duration, Effect: ev.Effect})
		}
	}
	e, err := engine.New(ec)
	if err != nil {
		return nil, err
	}
	return &Executor{e}, nil
}

// SweepResult counts what one Sweep changed.
type SweepResult struct {
	Tombstoned int // records past retention whose stored response was dropped
	Deleted    int // records past the tombstone period that were removed
}

// Sweep applies retention at the executor's clock: records past retention
// become tombstones (their stored responses are dropped) and records past
// the tombstone period are deleted, in batches of batchSize rows, each its
// own short statement that skips rows a running operation holds. Run it
// periodically; correctness never depends on it having run, since the
// executor compares deadlines with its clock itself.
func (e *Executor) Sweep(ctx context.Context, batchSize int) (SweepResult, error) {
	res, err := engine.Sweep(ctx, e, batchSize)
	return SweepResult(res), err
}
