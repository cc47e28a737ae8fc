package idemops

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemgen/idemgen/runtime/idemops/internal/sqlcdb"
)

// Action is who acts and why: both are mandatory and go to the audit
// table with the state change, in its transaction. Each is one line of
// printable text (no control or bidirectional formatting characters, which
// would forge or reorder what a view of the audit shows), of at most
// MaxActorLength and MaxReasonLength characters.
type Action struct {
	Actor  string // who: a person's name or login
	Reason string // why: what they established
}

// The longest actor and reason an Action may have, in characters.
const (
	MaxActorLength  = 200
	MaxReasonLength = 2000
)

// check refuses an action the audit table must not hold.
func (a Action) check() error {
	if strings.TrimSpace(a.Actor) == "" || strings.TrimSpace(a.Reason) == "" {
		return invalid("a support action needs an actor and a reason: both go to the audit table", nil)
	}
	if err := checkLine("actor", a.Actor, MaxActorLength); err != nil {
		return err
	}
	return checkLine("reason", a.Reason, MaxReasonLength)
}

// checkLine refuses a value of field that is not one line of printable
// text of at most most characters.
func checkLine(field, value string, most int) error {
	if !utf8.ValidString(value) {
		return invalid(fmt.Sprintf("the %s is not valid UTF-8", field), nil)
	}
	if n := utf8.RuneCountInString(value); n > most {
		return invalid(fmt.Sprintf("the %s has %d characters: at most %d", field, n, most), nil)
	}
	for i, r := range value {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return invalid(fmt.Sprintf("the %s has the control character %U at byte %d: write it as one line of printable text", field, r, i), nil)
		}
	}
	return nil
}

// AuditEntry is one support action on an effect.
type AuditEntry struct {
	ID          int64
	At          time.Time // by the database's clock
	Actor       string
	Reason      string
	From, To    EffectState // To is pending for a retry
	Scope       string
	OperationID string
	Seq         int
	EffectKey   string
}

// Resolve records what a person established about an effect the worker
// could not decide: to is EffectDone (it happened) or EffectFailed (it
// did not and will not). Only an effect in requires_recovery or dead is
// resolved (ErrWrongState otherwise); the move and its audit row commit
// together or not at all.
func (c *Client) Resolve(ctx context.Context, effectKey string, to EffectState, a Action) (AuditEntry, error) {
	if to != EffectDone && to != EffectFailed {
		return AuditEntry{}, invalid(fmt.Sprintf("resolve to %q: want done or failed (Retry runs the effect again)", to), nil)
	}
	return c.move(ctx, effectKey, to, a)
}

// Retry makes an effect in requires_recovery or dead due now with its
// attempt count reset (ErrWrongState for any other): the worker calls the
// provider again under the same effect key, without asking Verify or
// halting first, since the person retrying decided it is safe. The move
// and its audit row commit together or not at all.
func (c *Client) Retry(ctx context.Context, effectKey string, a Action) (AuditEntry, error) {
	return c.move(ctx, effectKey, EffectPending, a)
}

// move locks the effect, checks its state, writes the audit row and moves
// the state, in one transaction.
func (c *Client) move(ctx context.Context, effectKey string, to EffectState, a Action) (AuditEntry, error) {
	if err := a.check(); err != nil {
		return AuditEntry{}, err
	}
	id, seq, err := parseEffectKey(effectKey)
	if err != nil {
		return AuditEntry{}, err
	}
	entry := AuditEntry{Actor: a.Actor, Reason: a.Reason, To: to, Seq: int(seq), EffectKey: effectKey}
	err = pgx.BeginFunc(ctx, c.db, func(tx pgx.Tx) error {
		q := sqlcdb.New(c.schema.On(tx))
		locked, err := q.LockEffect(ctx, sqlcdb.LockEffectParams{OperationID: id, Seq: seq, EffectKey: effectKey})
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return &opsError{kind: ErrNotFound, msg: fmt.Sprintf("no effect %s", effectKey)}
		case err != nil:
			return err
		case !EffectState(locked.State).waitsForPerson():
			return &opsError{kind: ErrWrongState, msg: fmt.Sprintf("effect %s is %s: only an effect in requires_recovery or dead waits for a person", effectKey, locked.State)}
		}
		entry.Scope, entry.OperationID = locked.Scope, locked.OperationID
		row, err := q.InsertAudit(ctx, sqlcdb.InsertAuditParams{Actor: a.Actor, Reason: a.Reason, ToState: string(to),
			Scope: locked.Scope, OperationID: id, Seq: seq})
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "23514" { // check_violation
			return invalid("the audit table refused the action: "+pgErr.Message, err)
		}
		if err != nil {
			return err
		}
		entry.ID, entry.From, entry.At = row.ID, EffectState(row.FromState), utc(row.At)
		n, err := q.MoveEffect(ctx, sqlcdb.MoveEffectParams{ToState: string(to), Scope: locked.Scope, OperationID: id, Seq: seq})
		if err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("moved %d effects, want 1", n)
		}
		return nil
	})
	var own *opsError
	if err != nil && !errors.As(err, &own) {
		err = fmt.Errorf("idemops: effect %s: %w", effectKey, err)
	}
	if err != nil {
		return AuditEntry{}, err
	}
	return entry, nil
}

// parseEffectKey reads an effect key, <operation id>/<effect>/<seq>.
func parseEffectKey(key string) (pgtype.UUID, int32, error) {
	id, rest, ok := strings.Cut(key, "/")
	i := strings.LastIndexByte(rest, '/')
	if !ok || i < 0 {
		return pgtype.UUID{}, 0, invalid(fmt.Sprintf("effect key %q: want <operation id>/<effect>/<seq>, as the effect lists show it", key), nil)
	}
	uid, err := parseOperationID(id)
	if err != nil {
		return pgtype.UUID{}, 0, invalid(fmt.Sprintf("effect key %q: it does not begin with an operation id", key), err)
	}
	seq, err := strconv.ParseInt(rest[i+1:], 10, 32)
	if err != nil || seq < 1 {
		return pgtype.UUID{}, 0, invalid(fmt.Sprintf("effect key %q: the sequence number after the last / is not a positive integer", key), err)
	}
	return uid, int32(seq), nil
}

// AuditFilter narrows ListAudit and ListOperationAudit.
type AuditFilter struct {
	Scope       string // only this scope; "" every scope
	OperationID string // only actions on this operation's effects (ListAudit), or on the operation (ListOperationAudit)
	Actor       string // only this actor's actions
	Limit       int    // at most this many entries; 0 is DefaultLimit
}

// ListAudit lists support's actions on effects that match f, newest
// first.
func (c *Client) ListAudit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	p, err := f.params()
	if err != nil {
		return nil, err
	}
	return c.audit(ctx, p)
}

// params checks f and returns its query parameters, which both audit
// trails' lists take.
func (f AuditFilter) params() (sqlcdb.ListAuditParams, error) {
	id, err := parseOperationID(f.OperationID)
	if err != nil {
		return sqlcdb.ListAuditParams{}, err
	}
	n, err := limit(f.Limit)
	if err != nil {
		return sqlcdb.ListAuditParams{}, err
	}
	return sqlcdb.ListAuditParams{Scope: text(f.Scope), OperationID: id, Actor: text(f.Actor), MaxRows: n}, nil
}

// audit runs ListAudit with p.
func (c *Client) audit(ctx context.Context, p sqlcdb.ListAuditParams) ([]AuditEntry, error) {
	rows, err := c.q.ListAudit(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("idemops: listing the audit: %w", err)
	}
	entries := make([]AuditEntry, len(rows))
	for i, r := range rows {
		entries[i] = AuditEntry{ID: r.ID, At: utc(r.At), Actor: r.Actor, Reason: r.Reason, From: EffectState(r.FromState),
			To: EffectState(r.ToState), Scope: r.Scope, OperationID: r.OperationID, Seq: int(r.Seq), EffectKey: r.EffectKey}
	}
	return entries, nil
}
