package pgstore

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/internal/pgstore/internal/sqlcdb"
	"github.com/idemgen/idemgen/runtime/internal/tables"
)

// BusinessSavepoint names the savepoint QueueClaim opens around the business
// function when asked to; QueueComplete rolls back to it for a stored failure.
const BusinessSavepoint = "idem_business"

// Store holds the store's SQL, qualified with a schema when one is given.
// It is immutable and safe for concurrent use.
type Store struct {
	bound                string // BoundLockWaits, before each statement whose wait the caller bounds
	claim, get, complete string
	tombstone, purge     string
	purgeNatural         string
	purgeInbox           string
	enqueue              string
	claimNatural         string
	naturalHolder        string

	open, tryOpen, recheck, insert string // the advisory protocol's (advisory.go)

	insertCheckpoint, saveCheckpoint, fence, takeOver, giveUpLease string // checkpoint.go's
	completeCheckpointed, halt, abandoned                          string

	status, statusRecord string // status.go's
}

// New returns a Store whose statements address the tables in schema, or
// through the search_path when schema is empty.
func New(schema string) *Store {
	q := func(sql string) string { return tables.Qualify(schema, sql) }
	return &Store{
		bound:     q(sqlcdb.BoundLockWaits),
		claim:     q(sqlcdb.ClaimRecord),
		get:       q(sqlcdb.GetRecord),
		complete:  q(sqlcdb.CompleteRecord),
		tombstone: q(sqlcdb.TombstoneExpired),
		purge:     q(sqlcdb.DeletePurged),
		enqueue:   q(sqlcdb.EnqueueEffect),

		open:    q(sqlcdb.OpenKey),
		tryOpen: q(sqlcdb.TryOpenKey),
		recheck: q(sqlcdb.RecheckKey),
		insert:  q(sqlcdb.InsertRecord),

		insertCheckpoint: q(sqlcdb.InsertCheckpoint),
		saveCheckpoint:   q(sqlcdb.SaveCheckpoint),
		fence:            q(sqlcdb.FenceStep),
		takeOver:         q(sqlcdb.TakeOver),
		giveUpLease:      q(sqlcdb.GiveUpLease),

		completeCheckpointed: q(sqlcdb.CompleteCheckpointed),
		halt:                 q(sqlcdb.HaltOperation),
		abandoned:            q(sqlcdb.ListAbandoned),

		claimNatural:  q(sqlcdb.ClaimNaturalKey),
		naturalHolder: q(sqlcdb.GetNaturalKeyHolder),
		purgeNatural:  q(sqlcdb.DeleteNaturalKeysPastLifetime),

		status:       q(sqlcdb.GetStatus),
		statusRecord: q(sqlcdb.GetStatusRecord),
		purgeInbox:   q(sqlcdb.DeleteExpiredMessages),
	}
}

// ClaimOptions shape the statements QueueClaim sends.
type ClaimOptions struct {
	// Begin opens the transaction in the same batch (pgx.Batch.BeginTx),
	// saving the round trip of a separate BEGIN; the pgx.Tx is then
	// available from the BatchResults.
	Begin bool
	// LockTimeout bounds the claim's lock waits, for a concurrent holder
	// of the key and for the record table's lock (see BoundLockWaits); the
	// previous lock_timeout is restored right after the claim.
	LockTimeout time.Duration
	// Savepoint opens BusinessSavepoint after the claim.
	Savepoint bool
}

// QueueClaim appends the claim protocol to b: [BEGIN (b must be empty),]
// BoundLockWaits, which bounds every lock wait of the claim with
// lock_timeout, and the INSERT … ON CONFLICT DO NOTHING RETURNING that
// restores it once it holds the key [, SAVEPOINT]. Read the results with
// ReadClaim.
func (s *Store) QueueClaim(b *pgx.Batch, c Claim, o ClaimOptions) {
	if o.Begin {
		b.BeginTx(pgx.TxOptions{})
	}
	b.Queue(s.bound, TimeoutSetting(o.LockTimeout))
	b.Queue(s.claim, c.Scope, c.Key, c.Fingerprint, pgtype.UUID{Bytes: c.OperationID, Valid: true}, c.Operation,
		c.Retention.Seconds(), c.purgeAfter().Seconds())
	if o.Savepoint {
		b.Queue("SAVEPOINT " + BusinessSavepoint)
	}
}

// ReadClaim reads the results of a QueueClaim with the same options and
// reports whether the caller now holds the key. When it does not, a
// committed record holds it: read that with QueueRecord, then roll back.
// Any error leaves the transaction aborted; the caller rolls back. A claim
// that timed out waiting for the key fails with SQLSTATE 55P03
// (lock_not_available).
func (s *Store) ReadClaim(br pgx.BatchResults, o ClaimOptions) (claimed bool, err error) {
	if o.Begin {
		if _, err := br.Exec(); err != nil {
			return false, err
		}
	}
	if _, err := br.Exec(); err != nil { // BoundLockWaits
		return false, err
	}
	var id pgtype.UUID
	var restored string
	switch err := br.QueryRow().Scan(&id, &restored); {
	case err == nil:
		claimed = true
	case !errors.Is(err, pgx.ErrNoRows):
		return false, err
	}
	if o.Savepoint {
		if _, err := br.Exec(); err != nil {
			return false, err
		}
	}
	return claimed, nil
}

// QueueRecord appends to b the read of the committed record that holds
// (scope, key), for after a claim that did not take the key. Read it with
// ReadRecord.
func (s *Store) QueueRecord(b *pgx.Batch, scope, key string) {
	b.Queue(s.get, scope, key)
}

// ReadRecord reads the result of a QueueRecord: the record, or nil when it
// vanished (swept) since the claim, in which case the caller claims again.
func (s *Store) ReadRecord(br pgx.BatchResults) (*Record, error) {
	return scanRecord(br.QueryRow())
}

// QueueComplete appends the completion to b: [ROLLBACK TO SAVEPOINT when
// rollbackBusiness,] the UPDATE that stores the response [, COMMIT]. A
// completion under a fencing token (c.Token > 0, after a checkpoint) also
// deletes the operation's progress row, and changes nothing when another
// attempt replaced the token.
func (s *Store) QueueComplete(b *pgx.Batch, c Completion, rollbackBusiness, commit bool) {
	if rollbackBusiness {
		b.Queue("ROLLBACK TO SAVEPOINT " + BusinessSavepoint)
	}
	status := pgtype.Int4{Int32: int32(c.Status), Valid: true}
	if c.Token > 0 {
		b.Queue(s.completeCheckpointed, string(c.State), status, jsonText(c.Header), c.Body, c.Scope, c.Key, c.Token)
	} else {
		b.Queue(s.complete, string(c.State), status, jsonText(c.Header), c.Body,
			c.Scope, c.Key, pgtype.UUID{Bytes: c.OperationID, Valid: true})
	}
	if commit {
		b.Queue("COMMIT")
	}
}

// ReadComplete reads the results of the QueueComplete of c with the same
// flags.
func (s *Store) ReadComplete(br pgx.BatchResults, c Completion, rollbackBusiness, commit bool) error {
	if rollbackBusiness {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	tag, err := br.Exec()
	if err != nil {
		return err
	}
	switch n := tag.RowsAffected(); {
	case n == 0 && c.Token > 0:
		return ErrTokenReplaced
	case n != 1:
		return fmt.Errorf("pgstore: completion updated %d records, want 1", n)
	}
	if commit {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	return nil
}

func recordFromRow(row sqlcdb.GetRecordRow) *Record {
	r := &Record{
		OperationID: row.OperationID.Bytes,
		Fingerprint: row.Fingerprint,
		State:       State(row.State),
		Header:      row.ResponseHeaders,
		Body:        row.ResponseBody,
		ExpiresAt:   row.ExpiresAt.Time,
		ReadAt:      row.ReadAt.Time,
	}
	if row.ResponseStatus.Valid {
		r.Status = int(row.ResponseStatus.Int32)
	}
	if row.CompletedAt.Valid {
		r.CompletedAt = row.CompletedAt.Time
	}
	return r
}

// purgeAfter is how long after its creation the claimed record is deleted.
func (c *Claim) purgeAfter() time.Duration { return c.Retention + c.Tombstone }

// QueueBoundLockWaits appends BoundLockWaits to b, bounding at d every
// lock wait of the statements queued after it in the same transaction
// (SQLSTATE 55P03 past it), also a wait for a table's lock, which a bound
// set inside those statements would come too late for. The previous
// lock_timeout is saved as idem.saved_lock_timeout, for a statement to put
// back. Read its result with BatchResults.Exec. Send the batch with
// SendPrepared or SendBounded at d, which prepare its statements on the
// connection first, so that their preparation waits no longer than d
// either.
func QueueBoundLockWaits(b *pgx.Batch, d time.Duration) {
	b.Queue(sqlcdb.BoundLockWaits, TimeoutSetting(d))
}

// TimeoutSetting renders d as a setting of lock_timeout or
// statement_timeout (set_config's text): whole milliseconds, at least 1
// (0 would mean "wait forever") and at most maxTimeoutMillis, which
// PostgreSQL refuses to exceed: a longer configured timeout (24.8 days)
// is that one, not a setting that fails every statement it bounds.
func TimeoutSetting(d time.Duration) string {
	ms := min(max(d.Milliseconds(), 1), maxTimeoutMillis)
	return strconv.FormatInt(ms, 10) + "ms"
}

// maxTimeoutMillis is the largest lock_timeout or statement_timeout
// PostgreSQL takes, in milliseconds: its settings are 32-bit integers.
const maxTimeoutMillis = math.MaxInt32

// jsonText passes a JSON document for a jsonb parameter as text, which
// pgx sends as it is under every query exec mode; as []byte it would go
// as a bytea literal under the simple protocol. nil is SQL NULL.
func jsonText(doc []byte) *string {
	if doc == nil {
		return nil
	}
	s := string(doc)
	return &s
}
