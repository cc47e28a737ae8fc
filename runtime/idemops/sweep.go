package idemops

import (
	"context"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/internal/sweep"
)

// SweepOptions configure Sweep; a zero field is its default. They are
// the fields of the service's idem.MaintainOptions that a single sweep
// uses.
type SweepOptions struct {
	BatchSize          int           // rows per statement; 0 is 1000
	BatchTimeout       time.Duration // a batch statement is canceled past it, releasing its row locks; 0 is one second
	NaturalKeyLifetime time.Duration // natural-key rows claimed longer ago are deleted; 0 keeps them
	MaxClockSkew       time.Duration // largest tolerated difference between this clock and the database's; 0 is one minute
}

// SweepResult counts what one Sweep changed and how long its batches ran.
type SweepResult struct {
	Tombstoned         int           // records past retention whose stored response was dropped
	Deleted            int           // tombstones past the tombstone period that were removed
	NaturalKeysDeleted int           // natural-key rows past their lifetime that were removed
	MessagesDeleted    int           // processed messages of the inbox past their retention that were removed
	Batches            int           // statements run
	LongestBatch       time.Duration // the longest statement: the longest any row lock was held
}

// ErrClockSkew is the refusal of a sweep because this machine's clock and
// the database's differ by more than SweepOptions.MaxClockSkew; it is the
// service's idem.ErrClockSkew.
var ErrClockSkew = sweep.ErrClockSkew

// Sweep applies retention once, as the service's Executor.Maintain does
// every interval, for a cron job in place of it: records past retention
// become tombstones, tombstones past their period are deleted, then
// natural-key rows past their lifetime, in short batches that skip rows a
// running operation holds. It refuses to run (ErrClockSkew) when this
// machine's clock and the database's differ by more than o.MaxClockSkew.
// The Client's DB should be a pool: each batch is its own statement.
func (c *Client) Sweep(ctx context.Context, o SweepOptions) (SweepResult, error) {
	res, err := sweep.Run(ctx, c.db, pgstore.New(c.cfg.Schema), time.Now, sweep.Options(o))
	return SweepResult(res), err
}
