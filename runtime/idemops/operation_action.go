package idemops

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/idemops/internal/sqlcdb"
)

// OperationAuditEntry is one support action on an operation: a resume, or
// a resolution to completed or failed.
type OperationAuditEntry struct {
	ID          int64
	At          time.Time // by the database's clock
	Actor       string
	Reason      string
	From, To    OperationState // To is in_progress for a resume
	Scope       string
	OperationID string
}

// Resume hands an operation halted on an unknown outcome back to the
// service: a person has checked with the provider that calling again is
// safe. Its record goes back to in_progress and its lease is made to have
// run out, so that the client's next retry, or the completer, takes it
// over at once from its last recovery point and, because it was resumed,
// makes the call whose outcome was unknown again with the same step key
// (instead of halting again). Only an operation in requires_recovery, not
// past retention (a retry of it is answered operation-expired: resolve it
// instead), with a recovery point is resumed (ErrWrongState otherwise);
// the move and its audit row commit together or not at all. Attempts are
// not reset (the fencing token only grows): one that the completer halted
// because its attempts ran out is halted again by the completer's next
// takeover, and driven on by a client's retry.
func (c *Client) Resume(ctx context.Context, operationID string, a Action) (OperationAuditEntry, error) {
	return c.settle(ctx, operationID, OperationInProgress, a, func(q *sqlcdb.Queries, op sqlcdb.LockOperationRow) error {
		switch {
		case op.Expired:
			return &opsError{kind: ErrWrongState, msg: fmt.Sprintf("operation %s is past retention: a retry of it is answered operation-expired, so resuming it would answer no one; resolve it instead", operationID)}
		case !op.HasProgress:
			return &opsError{kind: ErrWrongState, msg: fmt.Sprintf("operation %s has no recovery point to resume from; resolve it instead", operationID)}
		}
		n, err := q.ResumeOperation(ctx, sqlcdb.ResumeOperationParams{Actor: a.Actor, Scope: op.Scope, IdempotencyKey: op.IdempotencyKey})
		if err == nil && n != 1 {
			err = fmt.Errorf("resumed %d operations, want 1", n)
		}
		return err
	})
}

// ResolveOperation settles an operation halted on an unknown outcome with
// what a person established: completed with r's answer, or failed with
// r's problem, which every later retry then receives as a replay. Its
// recovery point is dropped. Only an operation in requires_recovery is
// resolved (ErrWrongState otherwise), past retention too (its retries are
// answered operation-expired all the same, and only a decided record is
// swept); the move and its audit row commit together or not at all.
//
// An operation in progress whose lease has run out is not resolved: no
// outcome of it is unknown yet. The next retry or the completer takes it
// over from its last recovery point, and halts it for a person when an
// external call's outcome is unknown under the halt policy or when its
// attempts run out; resolving it instead would race that takeover, whose
// call to the provider runs outside any transaction and so outside any
// lock support could wait for.
func (c *Client) ResolveOperation(ctx context.Context, operationID string, r Resolution, a Action) (OperationAuditEntry, error) {
	resp, err := r.response()
	if err != nil {
		return OperationAuditEntry{}, err
	}
	return c.settle(ctx, operationID, r.To, a, func(q *sqlcdb.Queries, op sqlcdb.LockOperationRow) error {
		n, err := q.ResolveOperation(ctx, sqlcdb.ResolveOperationParams{ToState: string(r.To), ResponseStatus: int32(resp.status),
			ResponseHeaders: resp.header, ResponseBody: resp.body, Scope: op.Scope, IdempotencyKey: op.IdempotencyKey})
		if err == nil && n != 1 {
			err = fmt.Errorf("resolved %d operations, want 1", n)
		}
		return err
	})
}

// settle runs a support action on the operation id, which moves it out of
// requires_recovery to the state to with move, in one transaction: it
// locks the record, checks its state, writes the audit row and moves it.
func (c *Client) settle(ctx context.Context, id string, to OperationState, a Action, move func(*sqlcdb.Queries, sqlcdb.LockOperationRow) error) (OperationAuditEntry, error) {
	if err := a.check(); err != nil {
		return OperationAuditEntry{}, err
	}
	uid, err := parseOperationID(id)
	if err != nil {
		return OperationAuditEntry{}, err
	}
	if !uid.Valid {
		return OperationAuditEntry{}, invalid("a support action on an operation needs its operation id", nil)
	}
	entry := OperationAuditEntry{Actor: a.Actor, Reason: a.Reason, To: to, OperationID: id}
	err = pgx.BeginFunc(ctx, c.db, func(tx pgx.Tx) error {
		q := sqlcdb.New(c.schema.On(tx))
		op, err := q.LockOperation(ctx, uid)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return &opsError{kind: ErrNotFound, msg: fmt.Sprintf("no operation %s (or its record is swept)", id)}
		case err != nil:
			return err
		case OperationState(op.State) != OperationRequiresRecovery:
			return wrongOperationState(id, OperationState(op.State))
		}
		row, err := q.InsertOperationAudit(ctx, sqlcdb.InsertOperationAuditParams{Actor: a.Actor, Reason: a.Reason, ToState: string(to),
			Scope: op.Scope, IdempotencyKey: op.IdempotencyKey})
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "23514" { // check_violation
			return invalid("the audit table refused the action: "+pgErr.Message, err)
		}
		if err != nil {
			return err
		}
		entry.ID, entry.From, entry.At, entry.Scope = row.ID, OperationState(row.FromState), utc(row.At), op.Scope
		return move(q, op)
	})
	var own *opsError
	if err != nil && !errors.As(err, &own) {
		err = fmt.Errorf("idemops: operation %s: %w", id, err)
	}
	if err != nil {
		return OperationAuditEntry{}, err
	}
	return entry, nil
}

// wrongOperationState is the refusal of a support action on an operation
// in state s, which is not waiting for a person.
func wrongOperationState(id string, s OperationState) error {
	why := "only an operation in requires_recovery waits for a person"
	if s == OperationInProgress {
		why += "; one in progress is driven by the attempt that holds it, or, once its lease has run out, by the next retry or the completer, which halt it for a person when its outcome is unknown"
	}
	return &opsError{kind: ErrWrongState, msg: fmt.Sprintf("operation %s is %s: %s", id, s, why)}
}

// ListOperationAudit lists support's actions on operations that match f,
// newest first.
func (c *Client) ListOperationAudit(ctx context.Context, f AuditFilter) ([]OperationAuditEntry, error) {
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	return c.operationAudit(ctx, sqlcdb.ListOperationAuditParams(p))
}

// operationAudit runs ListOperationAudit with p.
func (c *Client) operationAudit(ctx context.Context, p sqlcdb.ListOperationAuditParams) ([]OperationAuditEntry, error) {
	rows, err := c.q.ListOperationAudit(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("idemops: listing the operations' audit: %w", err)
	}
	entries := make([]OperationAuditEntry, len(rows))
	for i, r := range rows {
		entries[i] = OperationAuditEntry{ID: r.ID, At: utc(r.At), Actor: r.Actor, Reason: r.Reason, From: OperationState(r.FromState),
			To: OperationState(r.ToState), Scope: r.Scope, OperationID: r.OperationID}
	}
	return entries, nil
}

// operationHistory is support's actions on the operation id, oldest
// first.
func (c *Client) operationHistory(ctx context.Context, id pgtype.UUID) ([]OperationAuditEntry, error) {
	entries, err := c.operationAudit(ctx, sqlcdb.ListOperationAuditParams{OperationID: id, MaxRows: maxRows})
	if err != nil {
		return nil, err
	}
	slices.Reverse(entries)
	return entries, nil
}
