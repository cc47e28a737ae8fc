package core

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/sweep"
)

// The defaults of MaintainOptions' Interval and MaxClockSkew; runtime/idem
// documents them.
const (
	defaultSweepInterval = time.Minute
	defaultMaxClockSkew  = time.Minute
)

// MaintainOptions configure Sweep and Maintain; a zero field is its
// default.
type MaintainOptions struct {
	Interval           time.Duration // between two sweeps of Maintain; 0 is one minute
	BatchSize          int           // rows per statement; 0 is 1000
	BatchTimeout       time.Duration // a batch statement is canceled past it, releasing its row locks; 0 is one second
	NaturalKeyLifetime time.Duration // natural-key rows claimed longer ago are deleted; 0 keeps them
	MaxClockSkew       time.Duration // a sweep logs a warning when the Clock and the database's differ by more; 0 is one minute
}

// sweepOptions are o's options for one sweep.
func (o MaintainOptions) sweepOptions() sweep.Options {
	return sweep.Options{BatchSize: o.BatchSize, BatchTimeout: o.BatchTimeout, NaturalKeyLifetime: o.NaturalKeyLifetime}
}

// normalize fills in the interval's and the skew bound's defaults and
// refuses negative options.
func (o MaintainOptions) normalize() (MaintainOptions, error) {
	if _, err := o.sweepOptions().Normalize(); err != nil {
		return o, err
	}
	if o.Interval < 0 || o.MaxClockSkew < 0 {
		return o, errors.New("idem: negative maintenance option")
	}
	if o.Interval == 0 {
		o.Interval = defaultSweepInterval
	}
	if o.MaxClockSkew == 0 {
		o.MaxClockSkew = defaultMaxClockSkew
	}
	return o, nil
}

// SweepResult counts what one Sweep changed and how long its batches ran.
type SweepResult = sweep.Result

// Sweep applies retention once on the database's clock (sweep.Run), and
// logs a warning when the executor's Clock is further from it than
// o.MaxClockSkew: nothing is decided by that clock, but a skewed host is
// worth knowing about.
func Sweep(ctx context.Context, h Holder, o MaintainOptions) (SweepResult, error) {
	e := Of(h)
	o, err := o.normalize()
	if err != nil {
		return SweepResult{}, err
	}
	res, err := sweep.Run(ctx, e.pool, e.store, e.clock.Now, o.sweepOptions())
	if err == nil && res.ClockSkew.Abs() > o.MaxClockSkew {
		e.log.LogAttrs(ctx, slog.LevelWarn, "idempotency: this host's clock differs from the database's; deadlines and leases follow the database's",
			slog.Duration("clock_skew", res.ClockSkew), slog.Duration("max_clock_skew", o.MaxClockSkew))
	}
	return res, err
}

// Maintain runs the completer (Redrive, over the operations registered
// with the executor), delivers the messages support retried to their
// consumers (RegisterMessageRedriver) and sweeps, at once and then every
// o.Interval until ctx ends, and returns nil then. Each sweep is logged
// (Info when it changed rows, Debug otherwise); a failed sweep is logged
// at Error and retried at the next interval. Invalid options are logged
// and returned at once.
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
		e.redriveMessages(ctx)
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
