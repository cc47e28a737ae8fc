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
	Operation   string // the operation's name
	// Token is the fencing token the attempt holds the operation under: 0
	// for a record claimed in its own transaction that never checkpointed.
	Token   int64
	Point   string // the recovery point's name
	State   []byte // what the next step needs
	Request []byte // the request the completer re-drives the operation from; stored by the first checkpoint
	Lease   time.Duration
	// TraceContext is the trace context of the request that began the
	// operation, stored by the first checkpoint ("" for none), so that
	// the span of an attempt that takes the operation over links to it.
	TraceContext string
}

// QueueInsertCheckpoint appends to b the advisory protocol's first
// checkpoint of a new operation, claimed by c: its record inserted in
// progress and its progress row with the recovery point, fencing token 1
// and a lease from the database's now(), then COMMIT. Read it with
// ReadCheckpoint; a record another transaction committed meanwhile fails
// it with a unique violation (IsUniqueViolation).
func (s *Store) QueueInsertCheckpoint(b *pgx.Batch, c Claim, cp Checkpoint) {
	b.Queue(s.insertCheckpoint, cp.Lease.Seconds(), cp.Point, cp.State, cp.Request, cp.TraceContext,
		c.Scope, c.Key, c.Fingerprint, pgtype.UUID{Bytes: c.OperationID, Valid: true}, c.Operation,
		c.Retention.Seconds(), c.purgeAfter().Seconds())
	b.Queue("COMMIT")
}

// QueueSaveCheckpoint appends to b every other checkpoint, on a record
// that exists: the progress row inserted (cp.Token 0) or updated under
// cp.Token, the lease renewed, then COMMIT. Read it with ReadCheckpoint.
func (s *Store) QueueSaveCheckpoint(b *pgx.Batch, cp Checkpoint) {
	b.Queue(s.saveCheckpoint, cp.Scope, cp.Key, cp.Operation, pgtype.UUID{Bytes: cp.OperationID, Valid: true},
		cp.Lease.Seconds(), cp.Point, cp.State, cp.Request, cp.TraceContext, cp.Token)
	b.Queue("COMMIT")
}

// ErrTokenReplaced is the error of a write under a fencing token that
// another attempt has replaced by taking the operation over.
var ErrTokenReplaced = errors.New("pgstore: the fencing token was replaced")

// ReadCheckpoint reads the results of a QueueInsertCheckpoint or
// QueueSaveCheckpoint: the fencing token the attempt now holds the
// operation under. A token another attempt replaced is ErrTokenReplaced,
// with the transaction left for the caller to roll back.
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
// checkpoint: the lease of the operation held under token renewed, which
// locks its progress row until the step's transaction ends. Read it with
// ReadFence.
func (s *Store) QueueFence(b *pgx.Batch, scope, key string, token int64, lease time.Duration) {
	b.Queue(s.fence, lease.Seconds(), scope, key, token)
}

// ReadFence reads the result of a QueueFence: whether the token still
// holds the operation.
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

// Halt is an operation halted on an unknown outcome.
type Halt struct {
	Scope string
	Key   string
	Token int64
	Point string // the recovery point reached, for support's resume
	State []byte
}

// QueueHalt appends to b the halt of an operation held under h.Token: its
// record in requires_recovery, its progress row kept for support with the
// point reached, then COMMIT. Read it with ReadHalt.
func (s *Store) QueueHalt(b *pgx.Batch, h Halt) {
	b.Queue(s.halt, h.Point, h.State, h.Scope, h.Key, h.Token)
	b.Queue("COMMIT")
}

// ReadHalt reads the results of a QueueHalt; a replaced token is
// ErrTokenReplaced.
func (s *Store) ReadHalt(br pgx.BatchResults) error {
	tag, err := br.Exec()
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		return ErrTokenReplaced
	}
	_, err = br.Exec() // COMMIT
	return err
}

// Takeover is what an attempt that took an operation over resumes from.
type Takeover struct {
	OperationID [16]byte
	Token       int64  // the new fencing token
	Point       string // the last recovery point
	State       []byte
	Request     []byte
	// ResumedBySupport reports that a person resumed the operation after
	// it halted, and it has reached no recovery point since.
	ResumedBySupport bool
	// TraceContext is the trace context its first checkpoint stored: the
	// request that began the operation ("" for none).
	TraceContext string
}

// TakeOver takes over, on conn in autocommit, the operation in
// progress that holds (scope, key) with fingerprint when its lease has run
// out on the database's clock, giving it a new fencing token and lease.
// It waits at most lockTimeout for a step that holds the operation's
// progress row, or for a lock on the tables (SQLSTATE 55P03 past it:
// BoundLockWaits and the takeover share the round trip and the implicit
// transaction; its preparation is bounded alike, see PrepareBounded), and
// returns nil when the lease still runs.
func (s *Store) TakeOver(ctx context.Context, conn *pgx.Conn, scope, key string, fingerprint []byte, lease, lockTimeout time.Duration) (*Takeover, error) {
	var b pgx.Batch
	b.Queue(s.bound, TimeoutSetting(lockTimeout))
	b.Queue(s.takeOver, lease.Seconds(), scope, key, fingerprint)
	br := SendPrepared(ctx, conn, conn, lockTimeout, &b)
	var t Takeover
	var id pgtype.UUID
	_, err := br.Exec()
	if err == nil {
		err = br.QueryRow().Scan(&id, &t.Token, &t.Point, &t.State, &t.Request, &t.ResumedBySupport, &t.TraceContext)
	}
	if cerr := br.Close(); err == nil || (errors.Is(err, pgx.ErrNoRows) && cerr != nil) {
		err = cerr
	}
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("pgstore: take over: %w", err)
	}
	t.OperationID = id.Bytes
	return &t, nil
}

// GiveUpLease lets the lease of the operation held under token run out
// after delay (0: at once), on conn in autocommit, so that a retry or
// the completer may take it over then. It waits at most lockTimeout for a
// lock (SQLSTATE 55P03 past it; BoundLockWaits first in the same round
// trip; its preparation is bounded alike, see PrepareBounded), so that an
// attempt that gave up on it leaves no statement behind that would still
// end the lease later.
func (s *Store) GiveUpLease(ctx context.Context, conn *pgx.Conn, scope, key string, token int64, delay, lockTimeout time.Duration) error {
	var b pgx.Batch
	b.Queue(s.bound, TimeoutSetting(lockTimeout))
	b.Queue(s.giveUpLease, delay.Seconds(), scope, key, token)
	br := SendPrepared(ctx, conn, conn, lockTimeout, &b)
	_, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pgstore: give up the lease: %w", err)
	}
	return nil
}

// Abandoned is an operation in progress whose lease ran out.
type Abandoned struct {
	Scope       string
	Key         string
	Operation   string
	Token       int64 // the fencing token of the last attempt: how many attempts held it
	Fingerprint []byte
}

// ListAbandoned lists, through db, at most limit operations of the named
// ones in progress whose lease ran out on the database's clock, oldest
// lease first.
func (s *Store) ListAbandoned(ctx context.Context, db Queryer, operations []string, limit int) ([]Abandoned, error) {
	rows, err := db.Query(ctx, s.abandoned, operations, int32(min(limit, 1<<30)))
	if err != nil {
		return nil, fmt.Errorf("pgstore: list abandoned operations: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Abandoned, error) {
		var a Abandoned
		err := row.Scan(&a.Scope, &a.Key, &a.Operation, &a.Token, &a.Fingerprint)
		return a, err
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: list abandoned operations: %w", err)
	}
	return out, nil
}

// Queryer runs a query of many rows; *pgx.Conn, *pgxpool.Pool and pgx.Tx
// are Queryers.
type Queryer interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}
