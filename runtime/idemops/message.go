package idemops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemgen/idemgen/runtime/idemops/internal/sqlcdb"
)

// MessageState is the state of a consumed message in the inbox that
// support sees: dead (its consumer's attempts spent) or retry (a person
// asked for one more delivery, which the consumer's Redrive makes, run by
// its executor's Maintain).
type MessageState string

// The message states support lists.
const (
	MessageDead  MessageState = "dead"
	MessageRetry MessageState = "retry"
)

// Message is a consumed message (a webhook, a broker message) that waits
// for support.
type Message struct {
	Source      string // the sender or stream, the scope of its id
	Consumer    string // the consumer's name (a webhook's operationId)
	MessageID   string // the message's own id, such as its webhook-id
	OperationID string // the id its effects carry; what RetryMessage takes
	State       MessageState
	Attempts    int
	MaxAttempts int
	LastError   string // the handler's error of the last failed attempt
	BodyBytes   int    // the size of the stored body a retry delivers
	ReceivedAt  time.Time
	UpdatedAt   time.Time
}

// MessageFilter selects messages; a zero field does not filter.
type MessageFilter struct {
	Consumer string
	State    MessageState // dead or retry
	Limit    int          // 0 means DefaultLimit
}

// ListMessages returns the dead messages and those waiting for their
// retry that match f, oldest change first.
func (c *Client) ListMessages(ctx context.Context, f MessageFilter) ([]Message, error) {
	if f.State != "" && f.State != MessageDead && f.State != MessageRetry {
		return nil, invalid(fmt.Sprintf("message state %q: want dead or retry", f.State), nil)
	}
	n, err := limit(f.Limit)
	if err != nil {
		return nil, err
	}
	rows, err := c.q.ListMessages(ctx, sqlcdb.ListMessagesParams{Consumer: f.Consumer, State: string(f.State), RowLimit: n})
	if err != nil {
		return nil, fmt.Errorf("idemops: listing messages: %w", err)
	}
	out := make([]Message, 0, len(rows))
	for _, r := range rows {
		out = append(out, Message{Source: r.Source, Consumer: r.Consumer, MessageID: r.MessageID, OperationID: r.OperationID,
			State: MessageState(r.State), Attempts: int(r.Attempts), MaxAttempts: int(r.MaxAttempts), LastError: r.LastError,
			BodyBytes: int(r.BodyBytes), ReceivedAt: utc(r.ReceivedAt), UpdatedAt: utc(r.UpdatedAt)})
	}
	return out, nil
}

// MessageAuditEntry is one support retry of a consumed message.
type MessageAuditEntry struct {
	ID                          int64
	At                          time.Time // by the database's clock
	Actor, Reason               string
	From, To                    MessageState
	Source, Consumer, MessageID string
	OperationID                 string
}

// RetryMessage moves the dead message whose operation id is operationID
// to retry, with an audit row in the same transaction (ErrWrongState for a
// message in any other state): its consumer's Redrive (run by the
// executor's Maintain at its next round) then delivers it once more from
// the stored body, and a failure makes it dead again.
func (c *Client) RetryMessage(ctx context.Context, operationID string, a Action) (MessageAuditEntry, error) {
	if err := a.check(); err != nil {
		return MessageAuditEntry{}, err
	}
	id, err := parseOperationID(operationID)
	if err != nil {
		return MessageAuditEntry{}, err
	}
	entry := MessageAuditEntry{Actor: a.Actor, Reason: a.Reason, To: MessageRetry, OperationID: operationID}
	err = pgx.BeginFunc(ctx, c.db, func(tx pgx.Tx) error {
		q := sqlcdb.New(c.schema.On(tx))
		locked, err := q.LockMessage(ctx, id)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return &opsError{kind: ErrNotFound, msg: fmt.Sprintf("no message %s", operationID)}
		case err != nil:
			return err
		case locked.State != string(MessageDead):
			return &opsError{kind: ErrWrongState, msg: fmt.Sprintf("message %s is %s: only a dead message is retried", operationID, locked.State)}
		}
		entry.Source, entry.Consumer, entry.MessageID = locked.Source, locked.Consumer, locked.MessageID
		row, err := q.InsertMessageAudit(ctx, sqlcdb.InsertMessageAuditParams{Actor: a.Actor, Reason: a.Reason,
			Source: locked.Source, Consumer: locked.Consumer, MessageID: locked.MessageID})
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "23514" { // check_violation
			return invalid("the audit table refused the action: "+pgErr.Message, err)
		}
		if err != nil {
			return err
		}
		entry.ID, entry.From, entry.At = row.ID, MessageState(row.FromState), utc(row.At)
		n, err := q.RetryMessage(ctx, sqlcdb.RetryMessageParams{Source: locked.Source, Consumer: locked.Consumer, MessageID: locked.MessageID})
		if err == nil && n != 1 {
			err = fmt.Errorf("moved %d messages, want 1", n)
		}
		return err
	})
	var own *opsError
	if err != nil && !errors.As(err, &own) {
		err = fmt.Errorf("idemops: message %s: %w", operationID, err)
	}
	if err != nil {
		return MessageAuditEntry{}, err
	}
	return entry, nil
}
