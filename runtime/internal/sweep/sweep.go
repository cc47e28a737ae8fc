// Package sweep applies retention to the runtime's tables: records past
// retention become tombstones, tombstones past their period are deleted,
// then natural-key rows past their lifetime. The executor's Maintain and
// the support library (for `idemgen ops sweep` from cron) both run it, so
// the command-line tool links the store's sweep statements and not the
// executor.
package sweep

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// The defaults of Options.
const (
	defaultBatchSize    = 1000
	defaultBatchTimeout = time.Second
	defaultMaxClockSkew = time.Minute
)

// ErrClockSkew is the refusal of a sweep whose clock and the database's
// differ by more than Options.MaxClockSkew: swept at a clock that runs
// ahead, a tombstone would be deleted early and a late retry would run
// again.
var ErrClockSkew = errors.New("idem: sweep refused: the clock and the database's differ")

// DB is where a sweep runs: a *pgxpool.Pool or a *pgx.Conn.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Options configure Run; a zero field is its default.
type Options struct {
	BatchSize          int           // rows per statement; 0 is 1000
	BatchTimeout       time.Duration // a batch statement is canceled past it, releasing its row locks; 0 is one second
	NaturalKeyLifetime time.Duration // natural-key rows claimed longer ago are deleted; 0 keeps them
	MaxClockSkew       time.Duration // largest tolerated difference between the clock and the database's; 0 is one minute
}

// Normalize fills in the defaults, or refuses a negative option.
func (o Options) Normalize() (Options, error) {
	if o.BatchSize < 0 || o.BatchTimeout < 0 || o.NaturalKeyLifetime < 0 || o.MaxClockSkew < 0 {
		return o, errors.New("idem: negative maintenance option")
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

// Result counts what one sweep changed and how long its batches ran.
type Result struct {
	Tombstoned         int           // records past retention whose stored response was dropped
	Deleted            int           // tombstones past the tombstone period that were removed
	NaturalKeysDeleted int           // natural-key rows past their lifetime that were removed
	MessagesDeleted    int           // processed messages of the inbox past their retention that were removed
	Batches            int           // statements run
	LongestBatch       time.Duration // the longest statement: the longest any row lock was held
}

// Run applies retention once at now(), after checking that clock against
// the database's: each step in batches of at most o.BatchSize rows, a
// batch being one statement of its own (its row locks end with it) that
// skips rows a running operation holds and is canceled past
// o.BatchTimeout. Correctness never depends on it having run: the
// executor compares deadlines with its clock itself.
func Run(ctx context.Context, db DB, store *pgstore.Store, now func() time.Time, o Options) (Result, error) {
	o, err := o.Normalize()
	if err != nil {
		return Result{}, err
	}
	at, err := checkClock(ctx, db, now, o.MaxClockSkew)
	if err != nil {
		return Result{}, err
	}
	var res Result
	steps := []step{{pgstore.SweepTombstone, at, &res.Tombstoned}, {pgstore.SweepPurge, at, &res.Deleted},
		{pgstore.SweepInbox, at, &res.MessagesDeleted}}
	if o.NaturalKeyLifetime > 0 {
		steps = append(steps, step{pgstore.SweepNaturalKeys, at.Add(-o.NaturalKeyLifetime), &res.NaturalKeysDeleted})
	}
	for _, s := range steps {
		for {
			bctx, cancel := context.WithTimeout(ctx, o.BatchTimeout)
			began := time.Now()
			n, err := store.SweepBatch(bctx, db, s.kind, s.at, o.BatchSize)
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

// step is one step of a sweep: its batches, their time argument and the
// count they add to.
type step struct {
	kind  pgstore.SweepStep
	at    time.Time
	count *int
}

// checkClock returns now() once it is within maxSkew of the database's
// clock (allowing for the round trip), or an ErrClockSkew.
func checkClock(ctx context.Context, db DB, now func() time.Time, maxSkew time.Duration) (time.Time, error) {
	var dbNow time.Time
	began := time.Now()
	if err := db.QueryRow(ctx, "SELECT now()").Scan(&dbNow); err != nil {
		return time.Time{}, fmt.Errorf("idem: sweep: the database's clock: %w", err)
	}
	rtt := time.Since(began)
	at := now()
	skew := at.Sub(dbNow)
	if skew < 0 {
		skew = -skew
	}
	if skew-rtt > maxSkew {
		return time.Time{}, fmt.Errorf("%w by %s (at most %s allowed)", ErrClockSkew, skew.Round(time.Millisecond), maxSkew)
	}
	return at, nil
}
