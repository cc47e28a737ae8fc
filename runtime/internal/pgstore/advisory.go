package pgstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/internal/pgstore/internal/sqlcdb"
)

// The advisory protocol, PostgreSQL's: a new operation writes its record
// once, completed, at the end of the business transaction, and duplicates
// meet on a transaction-level advisory lock on the key's hash instead of
// on an in-progress row.
//
//  1. One pipeline, one round trip: BoundLockWaits, which bounds the
//     pipeline's lock waits (the key's lock, the record table's lock),
//     then OpenKey (or TryOpenKey), which reads
//     the record and, when there is none, takes the key's lock, and
//     RecheckKey in the pipeline's implicit transaction, then BEGIN [,
//     SAVEPOINT], which makes that transaction the operation's. When
//     OpenKey finds a record (or, under TryOpenKey, the lock taken), it
//     takes no lock and RecheckKey fails, so the server rolls the pipeline
//     back by itself: a replay costs this one round trip. A lock wait that
//     times out is rolled back the same way. Otherwise the transaction is
//     open, the key's lock held and the record rechecked after the lock,
//     by a statement of its own that sees what was committed while the
//     lock was awaited.
//  2. The business function, in that transaction.
//  3. [ROLLBACK TO SAVEPOINT,] InsertRecord and COMMIT, pipelined.
//
// See QueueOpen and QueueInsert.

// OpenOptions shape the opening pipeline QueueOpen sends.
type OpenOptions struct {
	// LockTimeout bounds the pipeline's lock waits, for the key's lock
	// and for the record table's (see BoundLockWaits); the previous
	// lock_timeout is restored once the lock is held.
	LockTimeout time.Duration
	// Try takes the key's lock only when it is free (the reject policy)
	// instead of waiting for it.
	Try bool
	// Savepoint opens BusinessSavepoint once the lock is held.
	Savepoint bool
}

// Opened is what an opening pipeline found.
type Opened struct {
	// Record is the committed record holding the key, nil when none does.
	Record *Record
	// Locked reports that the caller holds the key's lock in an open
	// transaction, with no record holding the key: the new operation runs.
	// When it is false the caller rolls back (a no-op when the pipeline
	// ended its transaction) and answers from Record, or, with Record nil,
	// refuses the request as in progress (Try found the lock taken).
	Locked bool
	// Began is the database's clock when the pipeline's first statement
	// began, before any wait for the lock: what a record completed after
	// it was waited for.
	Began time.Time
}

// replayAbort is the SQLSTATE of RecheckKey's failure after an OpenKey or
// TryOpenKey that took no lock (invalid_text_representation: the cast of
// the sentence "idemgen replay: …" to an integer).
const replayAbort = "22P02"

// LockKey is the 64-bit advisory lock key of (scope, key): FNV-1a over
// the scope's length, the scope and the key, stable across processes and
// releases. Two keys that share a hash only wait for each other; the
// record's primary key, not the lock, decides what is stored.
func LockKey(scope, key string) int64 {
	h := fnv.New64a()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(scope)))
	_, _ = h.Write(n[:])
	_, _ = h.Write([]byte(scope))
	_, _ = h.Write([]byte(key))
	return int64(h.Sum64())
}

// openStatements are the statements QueueOpen queues, in order.
func (s *Store) openStatements(o OpenOptions) []string {
	open := s.open
	if o.Try {
		open = s.tryOpen
	}
	sqls := []string{s.bound, open, s.recheck, "BEGIN"}
	if o.Savepoint {
		sqls = append(sqls, "SAVEPOINT "+BusinessSavepoint)
	}
	return sqls
}

// QueueOpen appends the opening pipeline for (scope, key) to b, which must
// be empty. The batch begins a transaction (pgx.Batch.BeginTx) whose
// first statement is BoundLockWaits, so the pgx.Tx of the BatchResults is
// the transaction the pipeline's BEGIN opens, and is closed when the
// pipeline rolled back by itself. Send b with SendPrepared at
// o.LockTimeout, which prepares it on the connection first: that bounds the
// preparation's lock waits too, and spares the next operation on the
// connection a round trip to prepare the statements again after a
// replay's pipeline failed on purpose (pgx drops the statements of a
// failed batch from its cache, not those prepared by name). Read the
// results with ReadOpen.
func (s *Store) QueueOpen(b *pgx.Batch, scope, key string, o OpenOptions) {
	sqls := s.openStatements(o)
	b.BeginTx(pgx.TxOptions{BeginQuery: sqls[0]})
	b.QueuedQueries[0].Arguments = []any{TimeoutSetting(o.LockTimeout)}
	b.Queue(sqls[1], LockKey(scope, key), scope, key)
	b.Queue(sqls[2], scope, key)
	for _, sql := range sqls[3:] { // BEGIN [, SAVEPOINT]
		b.Queue(sql)
	}
}

// ReadOpen reads the results of a QueueOpen with the same options and
// closes br, whose pipeline may have ended on purpose. An error leaves the
// transaction, if any, for the caller to roll back; a lock wait past
// LockTimeout fails with SQLSTATE 55P03 (lock_not_available), and leaves
// no transaction.
func (s *Store) ReadOpen(br pgx.BatchResults, o OpenOptions) (Opened, error) {
	opened, ended, err := s.readOpen(br, o)
	if cerr := br.Close(); err == nil && !ended {
		err = cerr
	}
	return opened, err
}

// readOpen reads what ReadOpen returns, and whether the pipeline ended
// itself on purpose, after which closing br returns that failure.
func (s *Store) readOpen(br pgx.BatchResults, o OpenOptions) (_ Opened, ended bool, _ error) {
	if _, err := br.Exec(); err != nil { // BoundLockWaits
		return Opened{}, false, err
	}
	var opened string
	rec, began, err := scanRecordAt(br.QueryRow(), &opened)
	if err != nil {
		return Opened{}, false, err
	}
	var restored string
	recheck, err := scanRecord(br.QueryRow(), &restored)
	if rec != nil || opened != "" { // no lock taken: the recheck ended the pipeline
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != replayAbort {
			return Opened{}, false, fmt.Errorf("pgstore: the key was not locked but the pipeline went on (%v)", err)
		}
		return Opened{Record: rec, Began: began}, true, nil
	}
	if err != nil {
		return Opened{}, false, err
	}
	for range len(s.openStatements(o)) - 3 { // BEGIN [, SAVEPOINT]
		if _, err := br.Exec(); err != nil {
			return Opened{}, false, err
		}
	}
	return Opened{Record: recheck, Locked: recheck == nil, Began: began}, false, nil
}

// Insertion is the record a new operation writes once, at its end.
type Insertion struct {
	Claim
	Completion
}

// QueueInsert appends the end of a new operation to b: [ROLLBACK TO
// SAVEPOINT when rollbackBusiness,] InsertRecord and COMMIT. Read the
// results with ReadInsert. The state must be completed or failed.
func (s *Store) QueueInsert(b *pgx.Batch, r Insertion, rollbackBusiness bool) error {
	if r.State != StateCompleted && r.State != StateFailed {
		return fmt.Errorf("pgstore: insert a record in state %q, want completed or failed", r.State)
	}
	if rollbackBusiness {
		b.Queue("ROLLBACK TO SAVEPOINT " + BusinessSavepoint)
	}
	b.Queue(s.insert, r.Claim.Scope, r.Claim.Key, r.Fingerprint, string(r.State), pgtype.UUID{Bytes: r.Claim.OperationID, Valid: true},
		r.Operation, int32(r.Status), jsonText(r.Header), r.Body, r.Retention.Seconds(), r.purgeAfter().Seconds())
	b.Queue("COMMIT")
	return nil
}

// ReadInsert reads the results of a QueueInsert with the same flag. A
// record committed by another transaction meanwhile fails it with
// SQLSTATE 23505 (unique_violation; see IsUniqueViolation); the
// transaction is then aborted and the caller rolls back.
func (s *Store) ReadInsert(br pgx.BatchResults, rollbackBusiness bool) error {
	n := 2
	if rollbackBusiness {
		n++
	}
	for range n {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	return nil
}

// IsUniqueViolation reports whether err is a unique violation (SQLSTATE
// 23505).
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// scanRecord scans a record row, with extra trailing columns into extra;
// nil for no row, or for a row whose record columns are NULL (a LEFT JOIN
// that found no record).
func scanRecord(row pgx.Row, extra ...any) (*Record, error) {
	rec, _, err := scanRecordAt(row, extra...)
	return rec, err
}

// scanRecordAt is scanRecord that also returns the row's read_at, which a
// row without a record has too (the zero time for no row).
func scanRecordAt(row pgx.Row, extra ...any) (*Record, time.Time, error) {
	var r sqlcdb.GetRecordRow
	var state pgtype.Text
	err := row.Scan(append([]any{&r.OperationID, &r.Fingerprint, &state, &r.ResponseStatus,
		&r.ResponseHeaders, &r.ResponseBody, &r.CompletedAt, &r.ExpiresAt, &r.ReadAt}, extra...)...)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, time.Time{}, nil
	case err != nil:
		return nil, time.Time{}, err
	case !r.OperationID.Valid:
		return nil, r.ReadAt.Time, nil
	}
	r.State = state.String
	return recordFromRow(r), r.ReadAt.Time, nil
}
