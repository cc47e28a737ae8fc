package idemops

import (
	"context"
	"errors"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/internal/sweep"
)

// SweepOptions configure Sweep; a zero field is its default. They are
// the fields of the service's idem.MaintainOptions that a single sweep
// uses.
type SweepOptions struct {
	BatchSize          int           // rows per statement; 0 is 1000
	BatchTimeout       time.Duration // the database cancels a batch statement past it (its statement_timeout), releasing its row locks; 0 is one second
	NaturalKeyLifetime time.Duration // natural-key rows claimed longer ago are deleted; 0 keeps them
	MaxClockSkew       time.Duration // SweepResult.ClockSkewed reports a difference between this clock and the database's past it; 0 is one minute
}

// SweepResult counts what one Sweep changed and how long its batches ran.
type SweepResult struct {
	Tombstoned         int           // records past retention whose stored response was dropped
	Deleted            int           // tombstones past the tombstone period that were removed
	NaturalKeysDeleted int           // natural-key rows past their lifetime that were removed
	MessagesDeleted    int           // processed messages of the inbox past their retention that were removed
	Batches            int           // statements run
	LongestBatch       time.Duration // the longest statement: the longest any row lock was held
	// ClockSkew is how far this machine's clock was ahead of the
	// database's (negative: behind); 0 when within the round trip that
	// measured it. It changes nothing the sweep does.
	ClockSkew time.Duration
	// ClockSkewed reports that ClockSkew is past SweepOptions.MaxClockSkew:
	// worth a warning about this machine's clock, not a failure.
	ClockSkewed bool
}

// defaultMaxClockSkew is SweepOptions.MaxClockSkew when it is 0.
const defaultMaxClockSkew = time.Minute

// Sweep applies retention once, as the service's Executor.Maintain does
// every interval, for a cron job in place of it: records past retention
// become tombstones, tombstones past their period are deleted, then
// natural-key rows past their lifetime, in short batches that skip rows a
// running operation holds. Deadlines are compared with the database's
// clock, never this machine's, whose difference from it the result
// reports. The Client's DB should be a pool: each batch is its own
// statement.
func (c *Client) Sweep(ctx context.Context, o SweepOptions) (SweepResult, error) {
	if o.MaxClockSkew < 0 {
		return SweepResult{}, errors.New("idem: negative maintenance option")
	}
	if o.MaxClockSkew == 0 {
		o.MaxClockSkew = defaultMaxClockSkew
	}
	res, err := sweep.Run(ctx, c.db, pgstore.New(c.cfg.Schema), time.Now,
		sweep.Options{BatchSize: o.BatchSize, BatchTimeout: o.BatchTimeout, NaturalKeyLifetime: o.NaturalKeyLifetime})
	return SweepResult{Tombstoned: res.Tombstoned, Deleted: res.Deleted, NaturalKeysDeleted: res.NaturalKeysDeleted,
		Batches: res.Batches, LongestBatch: res.LongestBatch, ClockSkew: res.ClockSkew,
		ClockSkewed: res.ClockSkew.Abs() > o.MaxClockSkew}, err
}
