package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Looked is what a status lookup found under (scope, key) for one
// operation.
type Looked struct {
	// Record is the committed record of the operation holding the key; nil
	// when none does. Its Fingerprint is not read.
	Record *Record
	// Locked reports, when Record is nil and the lookup probed the lock,
	// that a transaction holds the key's advisory lock: an attempt of the
	// advisory protocol runs under it.
	Locked bool
}

// LookUp reads, in one statement on conn (GetStatus), the committed record
// of operation under (scope, key) and, without one and when probeLock is
// set, whether an attempt holds the key's advisory lock. It never waits
// for a lock and writes nothing.
func (s *Store) LookUp(ctx context.Context, conn *pgx.Conn, operation, scope, key string, probeLock bool) (Looked, error) {
	var (
		id      pgtype.UUID
		state   pgtype.Text
		status  pgtype.Int4
		header  []byte
		body    []byte
		expires pgtype.Timestamptz
		locked  bool
	)
	err := conn.QueryRow(ctx, s.status, probeLock, LockKey(scope, key), scope, key, operation).
		Scan(&id, &state, &status, &header, &body, &expires, &locked)
	if err != nil {
		return Looked{}, err
	}
	if !id.Valid {
		return Looked{Locked: locked}, nil
	}
	r := &Record{OperationID: id.Bytes, State: State(state.String), Header: header, Body: body, ExpiresAt: expires.Time}
	if status.Valid {
		r.Status = int(status.Int32)
	}
	return Looked{Record: r}, nil
}
