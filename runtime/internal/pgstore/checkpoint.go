package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Checkpoint is a recovery point an operation in progress commits.
type Checkpoint struct {
	Scope       string
	Key         string
	OperationID [16]byte
	// Token is the fencing token the attempt holds the record under: 0
	// for a record claimed in its own transaction that never checkpointed.
	Token int64
	Point string // the recovery point's name
	State []byte // what the next step needs
	Lease time.Duration
}

// QueueInsertCheckpoint appends to b the advisory protocol's first
// checkpoint of a new operation, claimed by c: the record inserted in
// progress with the recovery point, fencing token 1 and a lease from the
// database's now(), then COMMIT. Read it with ReadCheckpoint; a record
// another transaction committed meanwhile fails it with a unique
// violation (IsUniqueViolation).
func (s *Store) QueueInsertCheckpoint(b *pgx.Batch, c Claim, cp Checkpoint) {
	b.Queue(s.insertCheckpoint, c.Scope, c.Key, c.Fingerprint, pgtype.UUID{Bytes: c.OperationID, Valid: true},
		timestamptz(c.CreatedAt), timestamptz(c.ExpiresAt), timestamptz(c.PurgeAt), cp.Point, cp.State, cp.Lease.Seconds())
	b.Queue("COMMIT")
}

// QueueSaveCheckpoint appends to b every other checkpoint: the recovery
// point stored on the record held under cp.Token, the lease renewed, then
// COMMIT. Read it with ReadCheckpoint.
func (s *Store) QueueSaveCheckpoint(b *pgx.Batch, cp Checkpoint) {
	b.Queue(s.saveCheckpoint, cp.Point, cp.State, cp.Lease.Seconds(), cp.Scope, cp.Key,
		pgtype.UUID{Bytes: cp.OperationID, Valid: true}, cp.Token)
	b.Queue("COMMIT")
}

// ErrTokenReplaced is the error of a write under a fencing token that
// another attempt has replaced by taking the operation over.
var ErrTokenReplaced = errors.New("pgstore: the fencing token was replaced")

// ReadCheckpoint reads the results of a QueueInsertCheckpoint or
// QueueSaveCheckpoint: the fencing token the attempt now holds the record
// under. A token another attempt replaced is ErrTokenReplaced, with the
// transaction left for the caller to roll back.
func (s *Store) ReadCheckpoint(br pgx.BatchResults) (int64, error) {
	var token int64
	switch err := br.QueryRow().Scan(&token); {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, ErrTokenReplaced
	case err != nil:
		return 0, err
	}
	if _, err := br.Exec(); err != nil { // COMMIT
		return 0, err
	}
	return token, nil
}

// QueueFence appends to b the first statement of a step after a
// checkpoint: the lease of the record held under token renewed, which
// locks its row until the step's transaction ends. Read it with ReadFence.
func (s *Store) QueueFence(b *pgx.Batch, scope, key string, token int64, lease time.Duration) {
	b.Queue(s.fence, lease.Seconds(), scope, key, token)
}

// ReadFence reads the result of a QueueFence: whether the token still
// holds the record.
func (s *Store) ReadFence(br pgx.BatchResults) (bool, error) {
	var token int64
	switch err := br.QueryRow().Scan(&token); {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

// Querier runs a query of one row; *pgx.Conn, *pgxpool.Pool and pgx.Tx are
// Queriers.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Takeover is what an attempt that took an operation over resumes from.
type Takeover struct {
	OperationID [16]byte
	Token       int64  // the new fencing token
	Point       string // the last recovery point
	State       []byte
}

// TakeOver takes over, through db in autocommit, the operation in
// progress that holds (scope, key) with fingerprint when its lease has run
// out on the database's clock, giving it a new fencing token and lease.
// It waits at most lockTimeout for a step that holds the record's row
// (SQLSTATE 55P03 past it) and returns nil when the lease still runs.
func (s *Store) TakeOver(ctx context.Context, db Querier, scope, key string, fingerprint []byte, lease, lockTimeout time.Duration) (*Takeover, error) {
	var t Takeover
	var id pgtype.UUID
	err := db.QueryRow(ctx, s.takeOver, lease.Seconds(), scope, key, fingerprint, lockTimeoutSetting(lockTimeout)).
		Scan(&id, &t.Token, &t.Point, &t.State)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("pgstore: take over: %w", err)
	}
	t.OperationID = id.Bytes
	return &t, nil
}

// GiveUpLease ends, through db, the lease of the record held under token,
// so that the next retry may take its operation over at once.
func (s *Store) GiveUpLease(ctx context.Context, db Execer, scope, key string, token int64) error {
	if _, err := db.Exec(ctx, s.giveUpLease, scope, key, token); err != nil {
		return fmt.Errorf("pgstore: give up the lease: %w", err)
	}
	return nil
}
