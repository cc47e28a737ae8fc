// Package sweep applies retention to the runtime's tables: records past
// retention become tombstones, tombstones past their period are deleted,
// then natural-key rows past their lifetime, all on the database's clock.
// The executor's Maintain and the support library (for `idemgen ops sweep`
// from cron) both run it, so the command-line tool links the store's sweep
// statements and not the executor.
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
)

// clientGrace is how long past BatchTimeout the caller's side gives up on a
// batch whose database does not answer; the database itself cancels the
// statement at BatchTimeout.
const clientGrace = 5 * time.Second

// DB is where a sweep runs: a *pgxpool.Pool or a *pgx.Conn.
type DB interface {
	Begin(ctx context.Context) (pgx.Tx, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Options configure Run; a zero field is its default.
type Options struct {
	BatchSize          int           // rows per statement; 0 is 1000
	BatchTimeout       time.Duration // the database cancels a batch statement past it (its statement_timeout), releasing its row locks; 0 is one second
	NaturalKeyLifetime time.Duration // natural-key rows claimed longer ago are deleted; 0 keeps them
}

// Normalize fills in the defaults, or refuses a negative option.
func (o Options) Normalize() (Options, error) {
	if o.BatchSize < 0 || o.BatchTimeout < 0 || o.NaturalKeyLifetime < 0 {
		return o, errors.New("idem: negative maintenance option")
	}
	if o.BatchSize == 0 {
		o.BatchSize = defaultBatchSize
	}
	if o.BatchTimeout == 0 {
		o.BatchTimeout = defaultBatchTimeout
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
	// ClockSkew is how far the caller's clock was ahead of the database's
	// (negative: behind), measured halfway through the round trip that read
	// the database's; 0 when within that round trip. It changes nothing the
	// sweep does, for the caller to log.
	ClockSkew time.Duration
}

// Run applies retention once on the database's clock, never the caller's:
// each step in batches of at most o.BatchSize rows, a batch being one
// statement in a transaction of its own (its row locks end with it) that
// compares deadlines with now(), skips rows a running operation holds and
// is canceled by the database past o.BatchTimeout (its statement_timeout:
// on a deadline of the caller's side alone, pgx closes the connection and
// sends a cancel request after the call has returned, best effort, so the
// statement could run on, holding its locks). It first measures how far
// now, the caller's clock, is from the database's (Result.ClockSkew),
// which a skewed host logs and which changes nothing else. Correctness never
// depends on it having run: the executor compares deadlines with the
// database's clock itself.
func Run(ctx context.Context, db DB, store *pgstore.Store, now func() time.Time, o Options) (Result, error) {
	o, err := o.Normalize()
	if err != nil {
		return Result{}, err
	}
	var res Result
	if res.ClockSkew, err = measureSkew(ctx, db, now); err != nil {
		return Result{}, err
	}
	steps := []step{{pgstore.SweepTombstone, &res.Tombstoned}, {pgstore.SweepPurge, &res.Deleted},
		{pgstore.SweepInbox, &res.MessagesDeleted}}
	if o.NaturalKeyLifetime > 0 {
		steps = append(steps, step{pgstore.SweepNaturalKeys, &res.NaturalKeysDeleted})
	}
	for _, s := range steps {
		for {
			began := time.Now()
			n, err := batch(ctx, db, store, s.kind, o)
			res.Batches++
			res.LongestBatch = max(res.LongestBatch, time.Since(began))
			if err != nil {
				return res, err
			}
			*s.count += n
			if n < o.BatchSize {
				break
			}
		}
	}
	return res, nil
}

// batch runs one batch of kind in a transaction whose statement_timeout is
// o.BatchTimeout, so that PostgreSQL cancels the statement and releases
// its locks whatever becomes of the caller; the caller's own deadline,
// clientGrace later, only ends a wait on a database that does not answer.
func batch(ctx context.Context, db DB, store *pgstore.Store, kind pgstore.SweepStep, o Options) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, o.BatchTimeout+clientGrace)
	defer cancel()
	var n int
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT set_config('statement_timeout', $1, true)", pgstore.TimeoutSetting(o.BatchTimeout)); err != nil {
			return err
		}
		var err error
		n, err = store.SweepBatch(ctx, tx, kind, o.BatchSize, o.NaturalKeyLifetime)
		return err
	})
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "57014" { // query_canceled
		return 0, fmt.Errorf("idem: sweep: a batch of %s ran past the batch timeout (%v) and the database canceled it, releasing its locks; the next sweep goes on from there: %w",
			kind, o.BatchTimeout, err)
	}
	if err != nil {
		return 0, fmt.Errorf("idem: sweep: %w", err)
	}
	return n, nil
}

// step is one step of a sweep: its batches and the count they add to.
type step struct {
	kind  pgstore.SweepStep
	count *int
}

// measureSkew returns how far now is ahead of the database's clock
// (negative: behind): now's reading halfway through the round trip that
// read now() from the database, less its reading; 0 within the round
// trip, which bounds the measure's error.
func measureSkew(ctx context.Context, db DB, now func() time.Time) (time.Duration, error) {
	var dbNow time.Time
	before := now()
	if err := db.QueryRow(ctx, "SELECT now()").Scan(&dbNow); err != nil {
		return 0, fmt.Errorf("idem: sweep: the database's clock: %w", err)
	}
	rtt := now().Sub(before)
	skew := before.Add(rtt / 2).Sub(dbNow)
	if skew.Abs() <= rtt.Abs() {
		return 0, nil
	}
	return skew, nil
}
