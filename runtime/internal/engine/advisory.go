package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// advisory runs a keyed call under ProtocolAdvisory on conn. One pipeline
// reads the committed record and, in the same statement when there is
// none, takes the key's advisory lock (waiting at most lockTimeout under
// the wait policy, not at all under reject), then reads the record again
// and begins the transaction: a record found first is a replay in that
// one round trip, as is a refusal under reject; one found by the recheck,
// committed while the lock was awaited, is answered after a rollback, and
// the business function never runs. Holding the lock with no record, the
// operation runs and its record is inserted once, completed, pipelined
// with COMMIT (see run).
func (e *Executor) advisory(ctx context.Context, conn *pgx.Conn, c *Contract, call Call, op *Operation, fn BusinessFunc, claim pgstore.Claim, lockTimeout time.Duration, start time.Time) (*Result, error) {
	opts := pgstore.OpenOptions{LockTimeout: lockTimeout, Try: c.Concurrency == ConcurrencyReject, Savepoint: len(c.StoreFailures) > 0}
	if err := e.store.PrepareOpen(ctx, conn, opts); err != nil {
		return nil, e.takeFailed(ctx, conn, c, call, op, "open", err, start)
	}
	var b pgx.Batch
	e.store.QueueOpen(&b, call.Scope, call.Key, opts)
	br := conn.SendBatch(ctx, &b)
	opened, err := e.store.ReadOpen(br, opts)
	if err != nil {
		return nil, e.takeFailed(ctx, conn, c, call, op, "open", err, start)
	}
	if opened.Locked {
		return e.run(ctx, conn, &ownedTx{tx: br.Tx()}, c, call, op, fn, claim, opts.Savepoint, start)
	}
	// A no-op unless the recheck found the record: the pipeline ended its
	// transaction itself after a record or, under reject, a lock taken
	// (then there is no record).
	rollback(ctx, conn)
	if opened.Record == nil {
		return nil, e.refuse(ctx, c, call, start, inProgressEvent(c), &RefusalError{Err: ErrInProgress, RetryAfter: c.retryAfter()})
	}
	return e.answer(ctx, c, call, opened.Record, claim.CreatedAt, start)
}

// insertRecord writes the record of an operation run under
// ProtocolAdvisory, with its response, and commits, in one round trip. A
// unique violation means another transaction committed a record for the
// key meanwhile; the transaction is then aborted.
func (e *Executor) insertRecord(ctx context.Context, conn *pgx.Conn, claim pgstore.Claim, done pgstore.Completion, rollbackBusiness bool) error {
	var b pgx.Batch
	if err := e.store.QueueInsert(&b, pgstore.Insertion{Claim: claim, Completion: done}, rollbackBusiness); err != nil {
		return err
	}
	return exchange(ctx, conn, &b, func(br pgx.BatchResults) error { return e.store.ReadInsert(br, rollbackBusiness) })
}

// answerCommitted answers a call whose record insert met the record
// another transaction committed for its key: it reads that record, in
// autocommit, and answers from it.
func (e *Executor) answerCommitted(ctx context.Context, conn *pgx.Conn, c *Contract, call Call, op *Operation, now, start time.Time) (*Result, error) {
	var b pgx.Batch
	e.store.QueueRecord(&b, call.Scope, call.Key)
	var rec *pgstore.Record
	err := exchange(ctx, conn, &b, func(br pgx.BatchResults) (err error) {
		rec, err = e.store.ReadRecord(br)
		return err
	})
	if err == nil && rec == nil {
		err = fmt.Errorf("the record that took the key is gone")
	}
	if err != nil {
		err = fmt.Errorf("idem: %s: complete: %w", c.Operation, err)
		e.emit(ctx, c, call, EventRolledBack, start, op.ID, classify(err))
		return nil, err
	}
	return e.answer(ctx, c, call, rec, now, start)
}
