package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// run runs the steps of an attempt that holds its key, starting in tx,
// until fn decides how the operation ends; each Checkpoint commits the
// step and begins the next one. A panic is logged and observed here,
// after the rollback, and propagated.
//
// Its end is the protocol's: under ProtocolAdvisory an operation that
// never checkpointed writes its record once, with its outcome, and a
// unique violation there (a record another transaction committed
// meanwhile, the primary key being the final arbiter) rolls the business
// back and answers from that record; otherwise the record, claimed or
// checkpointed, is updated under the attempt's fencing token.
func (e *Executor) run(ctx context.Context, at *attempt, tx *ownedTx, fn Func) (res *Result, err error) {
	open := true // tx is open and ours to roll back
	defer func() {
		tx.closed.Store(true)
		if !open {
			return
		}
		rollback(ctx, at.conn) // an error return, a Release, or a panic in fn or a hook
		class := classify(err)
		if p := recover(); p != nil {
			class = ClassPanic
			e.emit(ctx, at, EventRolledBack, at.op.ID, class)
			e.logFailure(ctx, at, class, fmt.Errorf("idem: %s: panic: %v", at.Policy.Operation, p))
			panic(p)
		}
		if at.token > 0 {
			e.giveUpLease(ctx, at)
		}
		e.emit(ctx, at, EventRolledBack, at.op.ID, class)
	}()
	for {
		if err := e.hooks.Run(ctx, faults.AfterClaim, at.op.ID); err != nil {
			return nil, err
		}
		d, err := e.decide(ctx, at, tx, fn)
		if err != nil {
			return nil, err
		}
		if err := e.hooks.Run(ctx, faults.AfterBusiness, at.op.ID); err != nil {
			return nil, err
		}
		switch d.Disposition {
		case Release:
			return &Result{Outcome: d.Outcome, OperationID: at.op.ID}, nil // rolled back by the deferred func
		case Checkpoint:
			if err := e.checkpoint(ctx, at, d); err != nil {
				if answered, res, aerr := e.lostToCommitted(ctx, at, err, fn); answered {
					open = false
					return res, aerr
				}
				return nil, fmt.Errorf("idem: %s: checkpoint %s: %w", at.Policy.Operation, d.Point, err)
			}
			open = false
			tx.closed.Store(true)
			e.emit(ctx, at, EventCheckpoint, at.op.ID, "")
			e.effectsCommitted(at)
			if err := e.hooks.Run(ctx, faults.AfterCheckpoint, at.op.ID); err != nil {
				return nil, err
			}
			if d.After != nil {
				if err := d.After(ctx); err != nil {
					e.giveUpLease(ctx, at)
					err = fmt.Errorf("idem: %s: after checkpoint %s: %w", at.Policy.Operation, d.Point, &businessError{err})
					e.emit(ctx, at, EventRolledBack, at.op.ID, classify(err))
					return nil, err
				}
			}
			next, err := e.beginStep(ctx, at)
			if err != nil {
				e.emit(ctx, at, EventRolledBack, at.op.ID, classify(err))
				return nil, err
			}
			tx, open = next, true
			continue
		}
		if d.Disposition == Halt {
			if err := e.halt(ctx, at, d, false); err != nil {
				return nil, fmt.Errorf("idem: %s: halt: %w", at.Policy.Operation, err)
			}
			open = false
			tx.closed.Store(true)
			e.effectsCommitted(at)
			e.log.LogAttrs(ctx, slog.LevelWarn, "idempotent operation halted for recovery: its outcome is unknown",
				slog.String("operation", at.Policy.Operation), slog.String("operation_id", at.op.ID),
				slog.String("key_hash", e.keyHash(at.Scope, at.Key)), slog.String("point", d.Point))
			return nil, e.refuse(ctx, at, EventRequiresRecovery, &RefusalError{Err: ErrRequiresRecovery, OperationID: at.op.ID})
		}
		if err := e.finish(ctx, at, d); err != nil {
			if answered, res, aerr := e.lostToCommitted(ctx, at, err, fn); answered {
				open = false
				return res, aerr
			}
			return nil, fmt.Errorf("idem: %s: complete: %w", at.Policy.Operation, err)
		}
		open = false
		tx.closed.Store(true)
		e.emit(ctx, at, EventNew, at.op.ID, "")
		if d.Disposition == Complete { // a stored failure rolled the step's effects back with the business
			e.effectsCommitted(at)
		}
		res = &Result{Outcome: d.Outcome, OperationID: at.op.ID, Stored: true}
		if err := e.hooks.Run(ctx, faults.AfterCommit, at.op.ID); err != nil {
			return res, err
		}
		return res, nil
	}
}

// decide runs fn in tx and checks its decision against the policy.
func (e *Executor) decide(ctx context.Context, at *attempt, tx *ownedTx, fn Func) (Decision, error) {
	at.op.enqueued = at.op.enqueued[:0]
	d, err := fn(ctx, tx, at.op)
	if err != nil {
		return d, fmt.Errorf("idem: %s: %w", at.Policy.Operation, &businessError{err})
	}
	switch d.Disposition {
	case Complete, Release:
	case Fail:
		if !at.Policy.StoresFailures {
			return d, fmt.Errorf("idem: %s: a Fail decision under a policy that stores no failures", at.Policy.Operation)
		}
	case Checkpoint, Halt:
		switch {
		case d.Disposition == Halt && !at.recorded:
			return d, fmt.Errorf("idem: %s: a halt before any checkpoint: there is no recovery point for support to resume from", at.Policy.Operation)
		case at.Key == "":
			return d, fmt.Errorf("idem: %s: a checkpoint needs a key: an unprotected attempt has no record to hold it", at.Policy.Operation)
		case at.Policy.Lease <= 0:
			return d, fmt.Errorf("idem: %s: a checkpoint under a policy without a lease", at.Policy.Operation)
		case d.Point == "":
			return d, fmt.Errorf("idem: %s: a checkpoint without a recovery point name", at.Policy.Operation)
		}
	default:
		return d, fmt.Errorf("idem: %s: the Func returned no decision", at.Policy.Operation)
	}
	return d, nil
}

// effectsCommitted reports the effects the committed step enqueued.
func (e *Executor) effectsCommitted(at *attempt) {
	if e.observe != nil {
		for _, name := range at.op.enqueued {
			e.observe(Event{Kind: EventEffectEnqueued, Operation: at.Policy.Operation, Effect: name})
		}
	}
	at.op.enqueued = at.op.enqueued[:0]
}

// finish stores a Complete or Fail decision with the record and commits:
// the advisory protocol's one insert when no record exists yet, otherwise
// the update of the claimed or checkpointed record under the attempt's
// fencing token.
func (e *Executor) finish(ctx context.Context, at *attempt, d Decision) error {
	done := pgstore.Completion{
		Scope: at.Scope, Key: at.Key, OperationID: at.op.id, State: pgstore.StateCompleted, Token: at.token,
		Status: d.Outcome.Code, Header: d.Outcome.Meta, Body: d.Outcome.Body,
	}
	rollbackBusiness := d.Disposition == Fail
	if rollbackBusiness {
		done.State = pgstore.StateFailed
	}
	if !at.recorded {
		return e.insertRecord(ctx, at.conn, at.claim(), done, rollbackBusiness)
	}
	err := e.updateRecord(ctx, at.conn, done, rollbackBusiness)
	if errors.Is(err, pgstore.ErrTokenReplaced) {
		err = fmt.Errorf("%w (%w)", ErrFenced, err)
	}
	return err
}

// halt stops the operation at d's recovery point for support, under the
// attempt's fencing token, and commits: in the step's transaction, or in
// one of its own when begin is set.
func (e *Executor) halt(ctx context.Context, at *attempt, d Decision, begin bool) error {
	var b pgx.Batch
	if begin {
		b.Queue("BEGIN")
	}
	e.store.QueueHalt(&b, pgstore.Halt{Scope: at.Scope, Key: at.Key, Token: at.token, Point: d.Point, State: d.State})
	err := exchange(ctx, at.conn, &b, func(br pgx.BatchResults) error {
		if begin {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		return e.store.ReadHalt(br)
	})
	if errors.Is(err, pgstore.ErrTokenReplaced) {
		err = fmt.Errorf("%w (%w)", ErrFenced, err)
	}
	return err
}

// lostToCommitted answers an attempt whose record insert met the record
// another transaction committed for its key (only possible when instances
// of both protocols share a database): answered is false for any other
// error. The transaction is rolled back first.
func (e *Executor) lostToCommitted(ctx context.Context, at *attempt, err error, fn Func) (answered bool, _ *Result, _ error) {
	if at.recorded || !pgstore.IsUniqueViolation(err) {
		return false, nil, nil
	}
	rollback(ctx, at.conn)
	res, err := e.answerCommitted(ctx, at, fn)
	return true, res, err
}

// businessError marks an error returned by a Func.
type businessError struct{ err error }

func (b *businessError) Error() string { return b.err.Error() }
func (b *businessError) Unwrap() error { return b.err }

// errNoRecord is the error of a record that vanished between two reads.
var errNoRecord = errors.New("the record that took the key is gone")
