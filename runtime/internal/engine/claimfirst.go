package engine

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

// claimFirst runs a keyed call under ProtocolClaimFirst on conn: one
// pipeline begins the transaction and claims the key with an in-progress
// row, on which a concurrent duplicate waits (bounded by lockTimeout); the
// claimed operation runs, and its record is updated with the response. A
// claim that finds a committed record reads it and rolls back in a second
// round trip, and answers from it.
func (e *Executor) claimFirst(ctx context.Context, conn *pgx.Conn, c *Contract, call Call, op *Operation, fn BusinessFunc, claim pgstore.Claim, lockTimeout time.Duration, start time.Time) (*Result, error) {
	opts := pgstore.ClaimOptions{Begin: true, LockTimeout: lockTimeout, Savepoint: len(c.StoreFailures) > 0}
	for range maxClaimAttempts {
		var b pgx.Batch
		e.store.QueueClaim(&b, claim, opts)
		br := conn.SendBatch(ctx, &b)
		claimed, err := e.store.ReadClaim(br, opts)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil && isSerializationFailure(err) {
			// Under REPEATABLE READ or SERIALIZABLE a claim that waited
			// for a duplicate's row and then met its commit fails so
			// (nothing ran yet): a new transaction sees the record.
			rollback(ctx, conn)
			continue
		}
		if err != nil {
			return nil, e.takeFailed(ctx, conn, c, call, op, "claim", err, start)
		}
		if claimed {
			return e.run(ctx, conn, &ownedTx{tx: br.Tx()}, c, call, op, fn, claim, opts.Savepoint, start)
		}
		rec, err := e.readHolder(ctx, conn, call)
		if err != nil {
			e.emit(ctx, c, call, EventRolledBack, start, op.ID, classify(err))
			return nil, err
		}
		if rec != nil {
			return e.answer(ctx, c, call, rec, claim.CreatedAt, start)
		}
	}
	return nil, fmt.Errorf("idem: claim: the key was neither claimed nor its record read in %d attempts", maxClaimAttempts)
}

// readHolder reads the committed record that holds the key the claim did
// not take, and rolls the claim's transaction back, in one round trip; nil
// when the record went in between.
func (e *Executor) readHolder(ctx context.Context, conn *pgx.Conn, call Call) (*pgstore.Record, error) {
	var b pgx.Batch
	e.store.QueueRecord(&b, call.Scope, call.Key)
	b.Queue("ROLLBACK")
	var rec *pgstore.Record
	err := exchange(ctx, conn, &b, func(br pgx.BatchResults) (err error) {
		if rec, err = e.store.ReadRecord(br); err == nil {
			_, err = br.Exec()
		}
		return err
	})
	if err != nil {
		rollback(ctx, conn)
		return nil, fmt.Errorf("idem: claim: %w", err)
	}
	return rec, nil
}

// updateClaimed stores the response of a claimed operation by updating
// its record, and commits, in one round trip.
func (e *Executor) updateClaimed(ctx context.Context, conn *pgx.Conn, done pgstore.Completion, rollbackBusiness bool) error {
	var b pgx.Batch
	e.store.QueueComplete(&b, done, rollbackBusiness, true)
	return exchange(ctx, conn, &b, func(br pgx.BatchResults) error { return e.store.ReadComplete(br, rollbackBusiness, true) })
}
