package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// checkpoint commits the step with the recovery point d names: the
// advisory protocol's first checkpoint inserts the record in progress,
// every other one updates it under the attempt's fencing token; either
// way the record leaves with a lease on the database's clock and a token
// of at least 1, which the attempt holds from then on.
func (e *Executor) checkpoint(ctx context.Context, at *attempt, d Decision) error {
	cp := pgstore.Checkpoint{Scope: at.Scope, Key: at.Key, OperationID: at.op.id, Operation: at.Policy.Operation,
		Token: at.token, Point: d.Point, State: d.State, Request: at.op.request, Lease: at.Policy.Lease, TraceContext: at.op.trace}
	var b pgx.Batch
	if at.recorded {
		e.store.QueueSaveCheckpoint(&b, cp)
	} else {
		e.store.QueueInsertCheckpoint(&b, at.claim(), cp)
	}
	var token int64
	err := exchange(ctx, at.conn, &b, func(br pgx.BatchResults) (err error) {
		token, err = e.store.ReadCheckpoint(br)
		return err
	})
	if errors.Is(err, pgstore.ErrTokenReplaced) {
		err = fmt.Errorf("%w (%w)", ErrFenced, err)
	}
	if err != nil {
		return err
	}
	at.token, at.recorded = token, true
	at.op.point, at.op.state, at.op.supportResumed = d.Point, d.State, false
	return nil
}

// beginStep begins the transaction of the step after a checkpoint: it
// renews the lease under the attempt's fencing token, which also locks
// the record's row until the step ends (a takeover waits for the step
// instead of racing it), and opens the business savepoint when the policy
// stores failures, in one round trip. A token another attempt replaced is
// ErrFenced, with nothing begun.
func (e *Executor) beginStep(ctx context.Context, at *attempt) (*ownedTx, error) {
	var b pgx.Batch
	b.BeginTx(pgx.TxOptions{})
	e.store.QueueFence(&b, at.Scope, at.Key, at.token, at.Policy.Lease)
	if at.Policy.StoresFailures {
		b.Queue("SAVEPOINT " + pgstore.BusinessSavepoint)
	}
	br := at.conn.SendBatch(ctx, &b)
	held, err := e.readStep(br, at.Policy.StoresFailures)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && !held {
		err = ErrFenced
	}
	if err != nil {
		rollback(ctx, at.conn)
		return nil, fmt.Errorf("idem: %s: next step: %w", at.Policy.Operation, err)
	}
	return &ownedTx{tx: br.Tx()}, nil
}

// readStep reads beginStep's pipeline: whether the token still held.
func (e *Executor) readStep(br pgx.BatchResults, savepoint bool) (bool, error) {
	if _, err := br.Exec(); err != nil { // BEGIN
		return false, err
	}
	held, err := e.store.ReadFence(br)
	if err == nil && savepoint {
		_, err = br.Exec()
	}
	return held, err
}

// giveUpTimeout bounds giveUpLease, on the server (lock_timeout) and, a
// little later, on the client.
const giveUpTimeout = 5 * time.Second

// giveUpLease ends the lease of an attempt that stops after a checkpoint
// without deciding the operation (an error, a Release), so that the next
// retry takes the operation over at once (or, for the completer's
// attempts, after their backoff) instead of after the lease. It is best
// effort: a lease it could not end runs out by itself.
func (e *Executor) giveUpLease(ctx context.Context, at *attempt) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), giveUpTimeout)
	defer cancel()
	wait, _ := WaitBound(ctx, giveUpTimeout)
	if err := e.store.GiveUpLease(ctx, at.conn, at.Scope, at.Key, at.token, at.giveUpDelay, wait); err != nil {
		e.log.LogAttrs(ctx, slog.LevelWarn, "idempotent operation: giving up the lease failed; it runs out by itself",
			slog.String("operation", at.Policy.Operation), slog.String("operation_id", at.op.ID), slog.String("error", err.Error()))
	}
}

// takeOver takes over the operation opID, in progress after a checkpoint,
// when its lease has run out on the database's clock: a new fencing token
// makes every later write of the attempt that held it fail, and the
// operation resumes from its last recovery point in this attempt. While
// the lease runs, the attempt is refused as in progress at once under
// ConcurrencyReject; under ConcurrencyWait it looks again, backing off, up
// to the wait-timeout, and answers from the record once the operation is
// decided.
func (e *Executor) takeOver(ctx context.Context, at *attempt, opID string, fn Func) (*Result, error) {
	pause := 10 * time.Millisecond
	for {
		took, err := e.store.TakeOver(ctx, at.conn, at.Scope, at.Key, at.Fingerprint[:], at.Policy.Lease, at.lockTimeout(ctx))
		switch {
		case isLockTimeout(err):
			return nil, e.waitTimedOut(ctx, at, opID, err)
		case err != nil:
			err = fmt.Errorf("idem: %s: take over: %w", at.Policy.Operation, err)
			e.emit(ctx, at, EventRolledBack, opID, classify(err))
			return nil, err
		case took != nil:
			return e.resume(ctx, at, took, fn)
		}
		remaining := at.Policy.WaitTimeout - time.Since(at.start)
		if at.Policy.Concurrency == ConcurrencyReject || remaining <= 0 {
			return nil, e.inProgress(ctx, at, opID)
		}
		timer := time.NewTimer(min(pause, remaining))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("idem: waiting for the operation in progress: %w", context.Cause(ctx))
		case <-timer.C:
		}
		pause = min(2*pause, 250*time.Millisecond)
		rec, err := e.readRecord(ctx, at)
		switch {
		case err != nil:
			return nil, err
		case rec == nil:
			return nil, fmt.Errorf("idem: %s: the operation in progress vanished while a duplicate waited", at.Policy.Operation)
		case rec.State != pgstore.StateInProgress:
			return e.answer(ctx, at, rec, fn)
		}
	}
}

// resume makes the attempt the holder of the operation it took over and
// runs its remaining steps.
func (e *Executor) resume(ctx context.Context, at *attempt, took *pgstore.Takeover, fn Func) (*Result, error) {
	at.adopt(took)
	e.emit(ctx, at, EventTakenOver, at.op.ID, "")
	tx, err := e.beginStep(ctx, at)
	if err != nil {
		e.emit(ctx, at, EventRolledBack, at.op.ID, classify(err))
		return nil, err
	}
	return e.run(ctx, at, tx, fn)
}

// readRecord reads, in autocommit, the committed record of the attempt's
// key; nil when none holds it.
func (e *Executor) readRecord(ctx context.Context, at *attempt) (*pgstore.Record, error) {
	var b pgx.Batch
	e.store.QueueRecord(&b, at.Scope, at.Key)
	var rec *pgstore.Record
	sent := time.Now()
	err := exchange(ctx, at.conn, &b, func(br pgx.BatchResults) (err error) {
		rec, err = e.store.ReadRecord(br)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("idem: %s: read the record: %w", at.Policy.Operation, err)
	}
	if rec != nil {
		at.beganBy(rec.ReadAt, sent)
	}
	return rec, nil
}

// beganBy sets when the attempt began by the database's clock from a
// statement's time there, read, and when this host sent it.
func (at *attempt) beganBy(read, sent time.Time) {
	if !read.IsZero() {
		at.began = read.Add(-sent.Sub(at.start))
	}
}

// adopt makes the attempt the holder of the operation it took over.
func (at *attempt) adopt(took *pgstore.Takeover) {
	at.op.id, at.op.ID = took.OperationID, formatUUID(took.OperationID)
	at.op.point, at.op.state, at.op.request = took.Point, took.State, took.Request
	at.op.supportResumed = took.ResumedBySupport
	at.token, at.recorded = took.Token, true
	if took.TraceContext != "" {
		at.span.Link(took.TraceContext)
	}
}
