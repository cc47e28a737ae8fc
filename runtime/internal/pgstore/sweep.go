package pgstore

import (
	"context"
	"fmt"
	"strconv"
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

// String names the step as a sweep's errors and logs do.
func (s SweepStep) String() string {
	switch s {
	case SweepTombstone:
		return "tombstones"
	case SweepPurge:
		return "purges"
	case SweepNaturalKeys:
		return "natural keys"
	case SweepInbox:
		return "inbox messages"
	}
	return "step " + strconv.Itoa(int(s))
}

// SweepBatch runs one batch of step: at most batchSize rows, in one
// statement of its own that skips rows locked by a running operation and
// never waits for them. Deadlines are compared with the database's now(),
// never with a host's clock; lifetime is SweepNaturalKeys' natural-key
// lifetime (the other steps ignore it). It returns the number of rows
// changed; fewer than batchSize means the step is done for now.
func (s *Store) SweepBatch(ctx context.Context, db Execer, step SweepStep, batchSize int, lifetime time.Duration) (int, error) {
	if batchSize < 1 {
		return 0, fmt.Errorf("pgstore: sweep batch size %d, want at least 1", batchSize)
	}
	batch := int32(min(batchSize, 1<<30))
	var tag pgconn.CommandTag
	var err error
	switch step {
	case SweepNaturalKeys:
		tag, err = db.Exec(ctx, s.purgeNatural, lifetime.Seconds(), batch)
	case SweepPurge:
		tag, err = db.Exec(ctx, s.purge, batch)
	case SweepTombstone:
		tag, err = db.Exec(ctx, s.tombstone, batch)
	case SweepInbox:
		tag, err = db.Exec(ctx, s.purgeInbox, batch)
	default:
		return 0, fmt.Errorf("pgstore: unknown sweep step %d", step)
	}
	if err != nil {
		return 0, fmt.Errorf("pgstore: sweep: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
