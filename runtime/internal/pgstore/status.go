package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore/internal/sqlcdb"
)

// Looked is what a status lookup found under (scope, key) for one
// operation.
type Looked struct {
	// Record is the committed record of the operation holding the key; nil
	// when none does. Its Fingerprint and CompletedAt are not read.
	Record *Record
	// Locked reports, when Record is nil and the lookup probed the lock,
	// that a transaction holds the key's advisory lock: an attempt of the
	// advisory protocol runs under it.
	Locked bool
}

// LookUp reads, in one statement on conn, the committed record of
// operation under (scope, key) and, without one and when probeLock is set,
// whether an attempt holds the key's advisory lock (GetStatus); without
// probeLock it sends GetStatusRecord, which names no advisory-lock
// function. It never waits for a lock and writes nothing.
func (s *Store) LookUp(ctx context.Context, conn *pgx.Conn, operation, scope, key string, probeLock bool) (Looked, error) {
	var r sqlcdb.GetStatusRow
	dest := []any{&r.OperationID, &r.State, &r.ResponseStatus, &r.ResponseHeaders, &r.ResponseBody, &r.ExpiresAt, &r.ReadAt}
	var row pgx.Row
	if probeLock {
		row = conn.QueryRow(ctx, s.status, LockKey(scope, key), scope, key, operation)
		dest = append(dest, &r.Locked)
	} else {
		row = conn.QueryRow(ctx, s.statusRecord, scope, key, operation)
	}
	if err := row.Scan(dest...); err != nil {
		return Looked{}, err
	}
	if !r.OperationID.Valid {
		return Looked{Locked: r.Locked}, nil
	}
	rec := &Record{OperationID: r.OperationID.Bytes, State: State(r.State.String), Header: r.ResponseHeaders, Body: r.ResponseBody,
		ExpiresAt: r.ExpiresAt.Time, ReadAt: r.ReadAt.Time}
	if r.ResponseStatus.Valid {
		rec.Status = int(r.ResponseStatus.Int32)
	}
	return Looked{Record: rec}, nil
}
