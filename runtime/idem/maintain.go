package idem

import (
	"context"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// SweepResult counts what one Sweep changed and how long its batches ran.
type SweepResult struct {
	Tombstoned         int           // records past retention whose stored response was dropped
	Deleted            int           // tombstones past the tombstone period that were removed
	NaturalKeysDeleted int           // natural-key rows past MaintainOptions.NaturalKeyLifetime that were removed
	MessagesDeleted    int           // processed messages of the inbox past their consumer's retention that were removed
	Batches            int           // statements run
	LongestBatch       time.Duration // the longest statement, the longest any row lock was held
	// ClockSkew is how far the executor's Clock was ahead of the
	// database's (negative: behind); 0 when within the round trip that
	// measured it. It changes nothing the sweep does.
	ClockSkew time.Duration
}

// MaintainOptions configure Maintain and Sweep; a zero field is its
// default.
type MaintainOptions struct {
	// Interval is the time between two sweeps of Maintain; 0 is one minute.
	Interval time.Duration
	// BatchSize bounds the rows one statement changes; 0 is 1000.
	BatchSize int
	// BatchTimeout is a batch statement's statement_timeout: the database
	// cancels a batch that runs longer, releasing its row locks; 0 is one
	// second.
	BatchTimeout time.Duration
	// NaturalKeyLifetime is how long an entity's natural key stays claimed
	// after the operation that created it; older rows are deleted. 0, the
	// default, keeps them as long as the entity may exist. Make it longer
	// than retention plus tombstone: a natural key deleted earlier no longer
	// protects an entity whose operation is still remembered.
	NaturalKeyLifetime time.Duration
	// MaxClockSkew is the difference between the executor's Clock and the
	// database's now() past which a sweep logs a warning. The sweep runs
	// all the same, on the database's clock, as every deadline does. 0 is
	// one minute.
	MaxClockSkew time.Duration
}

// Maintain applies retention until ctx ends: it sweeps at once and then
// every o.Interval, logging each sweep; before each sweep it drives
// abandoned operations to their end and delivers the messages support
// retried (idemgen ops retry-message) to the executor's consumers. It
// returns nil when ctx ends (or the error of invalid options at once). A service starts it in one line:
//
//	go exec.Maintain(ctx, idem.MaintainOptions{})
//
// Several instances may run it at once: their batches skip each other's
// rows. Without it (or the `idemgen ops sweep` command run by cron),
// records and stored responses are kept forever.
func (e *Executor) Maintain(ctx context.Context, o MaintainOptions) error {
	return core.Maintain(ctx, e, core.MaintainOptions(o))
}

// Sweep applies retention once, on the database's clock: records past
// retention become tombstones (their stored responses are dropped),
// tombstones past their period are deleted, then natural-key rows past
// their lifetime, each in batches of at most o.BatchSize rows. A batch is
// one short statement that skips rows a running operation holds.
// Correctness never depends on it having run, since the executor compares
// deadlines with the database's clock itself. It logs a warning when the
// executor's Clock is further than o.MaxClockSkew from the database's
// (SweepResult.ClockSkew).
func (e *Executor) Sweep(ctx context.Context, o MaintainOptions) (SweepResult, error) {
	res, err := core.Sweep(ctx, e, core.MaintainOptions(o))
	return SweepResult(res), err
}
