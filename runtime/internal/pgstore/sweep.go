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

// SweepStep is one kind of retention batch.
type SweepStep int

// The sweep steps, in the order a sweep runs them.
const (
	// SweepTombstone turns records past retention into tombstones,
	// dropping their stored responses.
	SweepTombstone SweepStep = iota
	// SweepPurge deletes tombstones past their tombstone period.
	SweepPurge
	// SweepNaturalKeys deletes natural-key rows past their lifetime.
	SweepNaturalKeys
	// SweepInbox deletes processed messages of the inbox past their
	// retention.
	SweepInbox
)

// SweepBatch runs one batch of step: at most batchSize rows, in one
// statement of its own that skips rows locked by a running operation and
// never waits for them. For SweepTombstone, SweepPurge and SweepInbox,
// at is the sweeper's now; for SweepNaturalKeys, the oldest claim time kept. It
// returns the number of rows changed; fewer than batchSize means the step
// is done for now. The store reads no time of its own.
func (s *Store) SweepBatch(ctx context.Context, db Execer, step SweepStep, at time.Time, batchSize int) (int, error) {
	if batchSize < 1 {
		return 0, fmt.Errorf("pgstore: sweep batch size %d, want at least 1", batchSize)
	}
	sql := map[SweepStep]string{SweepTombstone: s.tombstone, SweepPurge: s.purge, SweepNaturalKeys: s.purgeNatural,
		SweepInbox: s.purgeInbox}[step]
	tag, err := db.Exec(ctx, sql, timestamptz(at), int32(min(batchSize, 1<<30)))
	if err != nil {
		return 0, fmt.Errorf("pgstore: sweep: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
