package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Effect is one side effect an operation enqueues in its transaction.
type Effect struct {
	Scope       string
	OperationID [16]byte
	// Operation is the contract's operation name, for support and metrics.
	Operation string
	// Name is the effect's name in the contract, such as
	// confirmation_email.
	Name string
	// OnUnknown is the contract's policy when the effect's outcome is
	// unknown: retry, verify or halt.
	OnUnknown string
	Payload   []byte
	// TraceContext is the trace context of the request that enqueued the
	// effect, for the worker's span to link to; "" for none.
	TraceContext string
}

// Enqueue writes e to the outbox through tx, the operation's transaction,
// and returns its effect key: the operation id, the effect name and its
// sequence number in the operation, stable across retries.
func (s *Store) Enqueue(ctx context.Context, tx pgx.Tx, e Effect) (string, error) {
	var key string
	err := tx.QueryRow(ctx, s.enqueue, e.Scope, pgtype.UUID{Bytes: e.OperationID, Valid: true}, e.Name, e.OnUnknown,
		e.Payload, e.Operation, e.TraceContext).Scan(&key)
	if err != nil {
		return "", fmt.Errorf("pgstore: enqueue %s: %w", e.Name, err)
	}
	return key, nil
}
