package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// NaturalKey is an entity's natural key as an operation claims it.
type NaturalKey struct {
	Scope     string
	Operation string
	// Key is the canonical JSON of the declared fields' values.
	Key         string
	OperationID [16]byte
}

// ClaimNaturalKey claims k through tx, the operation's transaction. It
// returns "" when the claim succeeded, and otherwise the id of the
// operation that holds the key. A concurrent claim of the same key waits
// until the holder's transaction ends.
func (s *Store) ClaimNaturalKey(ctx context.Context, tx pgx.Tx, k NaturalKey) (holder string, err error) {
	var id pgtype.UUID
	err = tx.QueryRow(ctx, s.claimNatural, k.Scope, k.Operation, k.Key, pgtype.UUID{Bytes: k.OperationID, Valid: true}).Scan(&id)
	if err == nil {
		return "", nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("pgstore: natural key: %w", err)
	}
	if err := tx.QueryRow(ctx, s.naturalHolder, k.Scope, k.Operation, k.Key).Scan(&holder); err != nil {
		return "", fmt.Errorf("pgstore: natural key holder: %w", err)
	}
	return holder, nil
}
