package core

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/sweep"
)

// defaultSweepInterval is the time between two sweeps of Maintain when
// MaintainOptions.Interval is 0; runtime/idem documents it.
const defaultSweepInterval = time.Minute

// ErrClockSkew is the refusal of a sweep whose clock and the database's
// differ by more than MaintainOptions.MaxClockSkew.
var ErrClockSkew = sweep.ErrClockSkew

// MaintainOptions configure Sweep and Maintain; a zero field is its
// default.
type MaintainOptions struct {
	Interval           time.Duration // between two sweeps of Maintain; 0 is one minute
	BatchSize          int           // rows per statement; 0 is 1000
	BatchTimeout       time.Duration // a batch statement is canceled past it, releasing its row locks; 0 is one second
	NaturalKeyLifetime time.Duration // natural-key rows claimed longer ago are deleted; 0 keeps them
	MaxClockSkew       time.Duration // largest tolerated difference between the clock and the database's; 0 is one minute
}

// sweepOptions are o's options for one sweep.
func (o MaintainOptions) sweepOptions() sweep.Options {
	return sweep.Options{BatchSize: o.BatchSize, BatchTimeout: o.BatchTimeout, NaturalKeyLifetime: o.NaturalKeyLifetime, MaxClockSkew: o.MaxClockSkew}
}

// normalize fills in the interval's default and refuses negative options.
func (o MaintainOptions) normalize() (MaintainOptions, error) {
	if _, err := o.sweepOptions().Normalize(); err != nil {
		return o, err
	}
	if o.Interval < 0 {
		return o, errors.New("idem: negative maintenance option")
	}
	if o.Interval == 0 {
		o.Interval = defaultSweepInterval
	}
	return o, nil
}

// SweepResult counts what one Sweep changed and how long its batches ran.
type SweepResult = sweep.Result

// Sweep applies retention once at the executor's clock, after checking it
// against the database's (sweep.Run).
func Sweep(ctx context.Context, h Holder, o MaintainOptions) (SweepResult, error) {
	e := Of(h)
	return sweep.Run(ctx, e.pool, e.store, e.clock.Now, o.sweepOptions())
}

// Maintain runs the completer (Redrive, over the operations registered
// with the executor) and sweeps, at once and then every o.Interval until
// ctx ends, and returns nil then. Each sweep is logged (Info when it
// changed rows, Debug otherwise); a failed sweep is logged at Error and
// retried at the next interval. Invalid options are logged and returned
// at once.
func Maintain(ctx context.Context, h Holder, o MaintainOptions) error {
	e := Of(h)
	o, err := o.normalize()
	if err != nil {
		e.log.LogAttrs(ctx, slog.LevelError, "idempotency maintenance not started", slog.String("error", err.Error()))
		return err
	}
	ticker := time.NewTicker(o.Interval)
	defer ticker.Stop()
	for {
		e.complete(ctx)
		res, err := Sweep(ctx, h, o)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			e.log.LogAttrs(ctx, slog.LevelError, "idempotency sweep failed", slog.String("error", err.Error()))
		default:
			level := slog.LevelDebug
			if res.Tombstoned+res.Deleted+res.NaturalKeysDeleted+res.MessagesDeleted > 0 {
				level = slog.LevelInfo
			}
			e.log.LogAttrs(ctx, level, "idempotency sweep",
				slog.Int("tombstoned", res.Tombstoned), slog.Int("deleted", res.Deleted),
				slog.Int("natural_keys_deleted", res.NaturalKeysDeleted), slog.Int("messages_deleted", res.MessagesDeleted),
				slog.Int("batches", res.Batches),
				slog.Duration("longest_batch", res.LongestBatch))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// complete runs the completer once, for Maintain, over the operations
// registered with the executor, and logs what it did.
func (e *Executor) complete(ctx context.Context) {
	res, err := Redrive(ctx, e, RedriveOptions{})
	switch {
	case ctx.Err() != nil:
	case err != nil:
		e.log.LogAttrs(ctx, slog.LevelError, "idempotency completer failed", slog.String("error", err.Error()))
	case res != RedriveResult{}:
		e.log.LogAttrs(ctx, slog.LevelInfo, "idempotency completer",
			slog.Int("completed", res.Completed), slog.Int("halted", res.Halted),
			slog.Int("failed", res.Failed), slog.Int("skipped", res.Skipped))
	}
}
