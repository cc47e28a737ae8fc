package core

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// maxClaimAttempts bounds the claim loop: a retry only happens when the
// record holding the key was swept between the claim and the read, or
// when the claim met a serialization failure (below).
const maxClaimAttempts = 3

// claimFirst runs a keyed attempt under ProtocolClaimFirst: one pipeline
// begins the transaction and claims the key with an in-progress row, on
// which a concurrent duplicate waits (bounded by what is left of the
// wait-timeout); the claimed operation runs, and its record is updated
// with the outcome. A claim that finds a committed record reads it and
// rolls back in a second round trip, and answers from it.
func (e *Executor) claimFirst(ctx context.Context, at *attempt, fn Func) (*Result, error) {
	opts := pgstore.ClaimOptions{Begin: true, LockTimeout: at.lockTimeout(ctx), Savepoint: at.Policy.StoresFailures}
	for range maxClaimAttempts {
		var b pgx.Batch
		e.store.QueueClaim(&b, at.claim(), opts)
		br := pgstore.SendPrepared(ctx, at.conn, at.conn, opts.LockTimeout, &b)
		claimed, err := e.store.ReadClaim(br, opts)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil && isSerializationFailure(err) {
			// Under REPEATABLE READ or SERIALIZABLE a claim that waited
			// for a duplicate's row and then met its commit fails so
			// (nothing ran yet): a new transaction sees the record.
			rollback(ctx, at.conn)
			continue
		}
		if err != nil {
			return nil, e.takeFailed(ctx, at, "claim", err)
		}
		if claimed {
			at.recorded = true
			return e.run(ctx, at, &ownedTx{tx: br.Tx()}, fn)
		}
		rec, err := e.readHolder(ctx, at)
		if err != nil {
			e.emit(ctx, at, EventRolledBack, at.op.ID, classify(err))
			return nil, err
		}
		if rec != nil {
			return e.answer(ctx, at, rec, fn)
		}
	}
	return nil, fmt.Errorf("idem: claim: the key was neither claimed nor its record read in %d attempts", maxClaimAttempts)
}

// readHolder reads the committed record that holds the key the claim did
// not take, and rolls the claim's transaction back, in one round trip; nil
// when the record went in between.
func (e *Executor) readHolder(ctx context.Context, at *attempt) (*pgstore.Record, error) {
	var b pgx.Batch
	e.store.QueueRecord(&b, at.Scope, at.Key)
	b.Queue("ROLLBACK")
	var rec *pgstore.Record
	sent := time.Now()
	err := exchange(ctx, at.conn, &b, func(br pgx.BatchResults) (err error) {
		if rec, err = e.store.ReadRecord(br); err == nil {
			_, err = br.Exec()
		}
		return err
	})
	if err != nil {
		rollback(ctx, at.conn)
		return nil, fmt.Errorf("idem: claim: %w", err)
	}
	if rec != nil {
		at.beganBy(rec.ReadAt, sent)
	}
	return rec, nil
}

// updateRecord stores the decision of an operation whose record row
// exists (claimed in its transaction, or committed by a checkpoint) by
// updating it under the attempt's fencing token, and commits, in one
// round trip.
func (e *Executor) updateRecord(ctx context.Context, conn *pgx.Conn, done pgstore.Completion, rollbackBusiness bool) error {
	var b pgx.Batch
	e.store.QueueComplete(&b, done, rollbackBusiness, true)
	return exchange(ctx, conn, &b, func(br pgx.BatchResults) error { return e.store.ReadComplete(br, done, rollbackBusiness, true) })
}
