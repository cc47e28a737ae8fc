package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Execer runs a statement; *pgx.Conn, *pgxpool.Pool and pgx.Tx are Execers.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// SweepResult counts what one Sweep changed.
type SweepResult struct {
	Tombstoned int // records past retention whose response was dropped
	Deleted    int // records past the tombstone period that were removed
}

// Sweep turns records past retention at now into tombstones and deletes
// records past their tombstone period, in batches of at most batchSize rows
// each in its own short statement (rows locked by a running operation are
// skipped, never waited for), until a batch comes back short or ctx ends.
// now comes from the caller's clock; the store reads no time of its own.
func (s *Store) Sweep(ctx context.Context, db Execer, now time.Time, batchSize int) (SweepResult, error) {
	if batchSize < 1 {
		return SweepResult{}, fmt.Errorf("pgstore: sweep batch size %d, want at least 1", batchSize)
	}
	var res SweepResult
	for _, step := range []struct {
		sql   string
		count *int
	}{{s.tombstone, &res.Tombstoned}, {s.purge, &res.Deleted}} {
		for {
			tag, err := db.Exec(ctx, step.sql, timestamptz(now), int32(batchSize))
			if err != nil {
				return res, fmt.Errorf("pgstore: sweep: %w", err)
			}
			*step.count += int(tag.RowsAffected())
			if tag.RowsAffected() < int64(batchSize) {
				break
			}
		}
	}
	return res, nil
}
