package core

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// advisory runs a keyed attempt under ProtocolAdvisory. One pipeline
// reads the committed record and, in the same statement when there is
// none, takes the key's advisory lock (waiting at most what is left of the
// wait-timeout under the wait policy, not at all under reject), then
// reads the record again and begins the transaction: a record found first
// is answered in that one round trip, as is a refusal under reject; one
// found by the recheck, committed while the lock was awaited, is answered
// after a rollback, and fn never runs. Holding the lock with no record,
// the operation runs and its record is inserted once, decided, pipelined
// with COMMIT (see run).
func (e *Executor) advisory(ctx context.Context, at *attempt, fn Func) (*Result, error) {
	opts := pgstore.OpenOptions{LockTimeout: at.lockTimeout(ctx), Try: at.Policy.Concurrency == ConcurrencyReject, Savepoint: at.Policy.StoresFailures}
	var b pgx.Batch
	e.store.QueueOpen(&b, at.Scope, at.Key, opts)
	// Prepared first so that sent is when the pipeline goes out; SendPrepared
	// then finds the statements prepared, and marks them stale if they were.
	if err := pgstore.PrepareBatch(ctx, at.conn, opts.LockTimeout, &b); err != nil {
		return nil, e.takeFailed(ctx, at, "open", err)
	}
	sent := time.Now()
	br := pgstore.SendPrepared(ctx, at.conn, at.conn, opts.LockTimeout, &b)
	opened, err := e.store.ReadOpen(br, opts)
	if err != nil {
		return nil, e.takeFailed(ctx, at, "open", err)
	}
	at.beganBy(opened.Began, sent)
	if opened.Locked {
		return e.run(ctx, at, &ownedTx{tx: br.Tx()}, fn)
	}
	// A no-op unless the recheck found the record: the pipeline ended its
	// transaction itself after a record or, under reject, a lock taken
	// (then there is no record).
	rollback(ctx, at.conn)
	if opened.Record == nil {
		return nil, e.inProgress(ctx, at, "")
	}
	return e.answer(ctx, at, opened.Record, fn)
}

// insertRecord writes the record of an operation run under
// ProtocolAdvisory that never checkpointed, with its outcome, and commits,
// in one round trip. A unique violation means another transaction
// committed a record for the key meanwhile; the transaction is then
// aborted.
func (e *Executor) insertRecord(ctx context.Context, conn *pgx.Conn, claim pgstore.Claim, done pgstore.Completion, rollbackBusiness bool) error {
	var b pgx.Batch
	if err := e.store.QueueInsert(&b, pgstore.Insertion{Claim: claim, Completion: done}, rollbackBusiness); err != nil {
		return err
	}
	return exchange(ctx, conn, &b, func(br pgx.BatchResults) error { return e.store.ReadInsert(br, rollbackBusiness) })
}

// answerCommitted answers an attempt whose record insert met the record
// another transaction committed for its key: it reads that record, in
// autocommit, and answers from it.
func (e *Executor) answerCommitted(ctx context.Context, at *attempt, fn Func) (*Result, error) {
	rec, err := e.readRecord(ctx, at)
	if err == nil && rec == nil {
		err = errNoRecord
	}
	if err != nil {
		err = fmt.Errorf("idem: %s: complete: %w", at.Policy.Operation, err)
		e.emit(ctx, at, EventRolledBack, at.op.ID, classify(err))
		return nil, err
	}
	return e.answer(ctx, at, rec, fn)
}
