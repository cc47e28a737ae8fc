package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// The maintenance defaults; runtime/idem documents them on MaintainOptions.
const (
	defaultSweepInterval = time.Minute
	defaultBatchSize     = 1000
	defaultBatchTimeout  = time.Second
	defaultMaxClockSkew  = time.Minute
)

// ErrClockSkew is the refusal of a sweep whose clock and the database's
// differ by more than MaintainOptions.MaxClockSkew: swept at a clock that
// runs ahead, a tombstone would be deleted early and a late retry would
// run again.
var ErrClockSkew = errors.New("idem: sweep refused: the clock and the database's differ")

// MaintainOptions configure Sweep and Maintain; a zero field is its
// default.
type MaintainOptions struct {
	Interval           time.Duration // between two sweeps of Maintain; 0 is one minute
	BatchSize          int           // rows per statement; 0 is 1000
	BatchTimeout       time.Duration // a batch statement is canceled past it, releasing its row locks; 0 is one second
	NaturalKeyLifetime time.Duration // natural-key rows claimed longer ago are deleted; 0 keeps them
	MaxClockSkew       time.Duration // largest tolerated difference between the clock and the database's; 0 is one minute
}

// normalize fills in the defaults.
func (o MaintainOptions) normalize() (MaintainOptions, error) {
	if o.Interval < 0 || o.BatchSize < 0 || o.BatchTimeout < 0 || o.NaturalKeyLifetime < 0 || o.MaxClockSkew < 0 {
		return o, errors.New("idem: negative maintenance option")
	}
	if o.Interval == 0 {
		o.Interval = defaultSweepInterval
	}
	if o.BatchSize == 0 {
		o.BatchSize = defaultBatchSize
	}
	if o.BatchTimeout == 0 {
		o.BatchTimeout = defaultBatchTimeout
	}
	if o.MaxClockSkew == 0 {
		o.MaxClockSkew = defaultMaxClockSkew
	}
	return o, nil
}

// SweepResult counts what one Sweep changed and how long its batches ran.
type SweepResult struct {
	Tombstoned         int           // records past retention whose stored response was dropped
	Deleted            int           // tombstones past the tombstone period that were removed
	NaturalKeysDeleted int           // natural-key rows past their lifetime that were removed
	Batches            int           // statements run
	LongestBatch       time.Duration // the longest statement: the longest any row lock was held
}

// Sweep applies retention once at the executor's clock, after checking it
// against the database's: records past retention become tombstones,
// tombstones past their period are deleted, then natural-key rows past
// their lifetime, each in batches of at most o.BatchSize rows. A batch is
// one statement of its own (its row locks end with it) that skips rows a
// running operation holds, and is canceled past o.BatchTimeout.
// Correctness never depends on it having run: the executor compares
// deadlines with its clock itself.
func Sweep(ctx context.Context, h Holder, o MaintainOptions) (SweepResult, error) {
	e := Of(h)
	o, err := o.normalize()
	if err != nil {
		return SweepResult{}, err
	}
	now, err := e.checkClock(ctx, o.MaxClockSkew)
	if err != nil {
		return SweepResult{}, err
	}
	var res SweepResult
	steps := []sweepStep{{pgstore.SweepTombstone, now, &res.Tombstoned}, {pgstore.SweepPurge, now, &res.Deleted}}
	if o.NaturalKeyLifetime > 0 {
		steps = append(steps, sweepStep{pgstore.SweepNaturalKeys, now.Add(-o.NaturalKeyLifetime), &res.NaturalKeysDeleted})
	}
	for _, s := range steps {
		for {
			bctx, cancel := context.WithTimeout(ctx, o.BatchTimeout)
			began := time.Now()
			n, err := e.store.SweepBatch(bctx, e.pool, s.step, s.at, o.BatchSize)
			took := time.Since(began)
			cancel()
			res.Batches++
			res.LongestBatch = max(res.LongestBatch, took)
			if err != nil {
				return res, fmt.Errorf("idem: sweep: %w", err)
			}
			*s.count += n
			if n < o.BatchSize {
				break
			}
		}
	}
	return res, nil
}

// sweepStep is one step of a sweep: its batches, their time argument and
// the count they add to.
type sweepStep struct {
	step  pgstore.SweepStep
	at    time.Time
	count *int
}

// checkClock returns the executor's now once it is within maxSkew of the
// database's (allowing for the round trip), or an ErrClockSkew.
func (e *Executor) checkClock(ctx context.Context, maxSkew time.Duration) (time.Time, error) {
	var db time.Time
	began := time.Now()
	if err := e.pool.QueryRow(ctx, "SELECT now()").Scan(&db); err != nil {
		return time.Time{}, fmt.Errorf("idem: sweep: the database's clock: %w", err)
	}
	rtt := time.Since(began)
	now := e.clock.Now()
	skew := now.Sub(db)
	if skew < 0 {
		skew = -skew
	}
	if skew-rtt > maxSkew {
		return time.Time{}, fmt.Errorf("%w by %s (at most %s allowed)", ErrClockSkew, skew.Round(time.Millisecond), maxSkew)
	}
	return now, nil
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
			if res.Tombstoned+res.Deleted+res.NaturalKeysDeleted > 0 {
				level = slog.LevelInfo
			}
			e.log.LogAttrs(ctx, level, "idempotency sweep",
				slog.Int("tombstoned", res.Tombstoned), slog.Int("deleted", res.Deleted),
				slog.Int("natural_keys_deleted", res.NaturalKeysDeleted), slog.Int("batches", res.Batches),
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
