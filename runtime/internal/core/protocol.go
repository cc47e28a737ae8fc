package core

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Protocol is the store protocol an Executor runs a keyed operation with.
type Protocol int

// The store protocols.
const (
	// ProtocolAuto chooses by the database engine, once, before the first
	// operation: ProtocolAdvisory on PostgreSQL whose sessions default to
	// READ COMMITTED, ProtocolClaimFirst on CockroachDB, YugabyteDB, any
	// other engine whose version() does not read as PostgreSQL's, and a
	// PostgreSQL whose default_transaction_isolation is stricter.
	ProtocolAuto Protocol = iota
	// ProtocolAdvisory writes the record once, completed, at the end of
	// the business transaction; duplicates wait on a transaction-level
	// advisory lock on the key's hash. A replay is one round trip, a new
	// operation one round trip before and one after the business
	// function. PostgreSQL only.
	ProtocolAdvisory
	// ProtocolClaimFirst claims the key with an in-progress row (INSERT …
	// ON CONFLICT) on which duplicates wait, and updates it with the
	// response before COMMIT: the portable protocol. A replay is two
	// round trips.
	ProtocolClaimFirst
)

// String returns the protocol's name: auto, advisory or claim-first.
func (p Protocol) String() string {
	switch p {
	case ProtocolAuto:
		return "auto"
	case ProtocolAdvisory:
		return "advisory"
	case ProtocolClaimFirst:
		return "claim-first"
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// protocolFor is the protocol ProtocolAuto chooses for a server whose
// version() is version and whose sessions' default_transaction_isolation
// is isolation: the advisory protocol on PostgreSQL itself, under READ
// COMMITTED, only. CockroachDB reports "CockroachDB CCL v…" and lacks a
// usable pg_advisory_xact_lock before its 2026 releases; YugabyteDB
// reports "PostgreSQL 11.2-YB-…" and has advisory locks only behind flags.
// Under REPEATABLE READ or SERIALIZABLE the advisory protocol's recheck
// would read the snapshot taken before the lock wait and miss a record
// committed meanwhile, so that a waiting duplicate ran the business
// function before the primary key refused its record; claim-first's
// in-progress row stops it before the business function instead.
func protocolFor(version, isolation string) Protocol {
	if strings.HasPrefix(version, "PostgreSQL ") && !strings.Contains(version, "-YB-") && isolation == "read committed" {
		return ProtocolAdvisory
	}
	return ProtocolClaimFirst
}

// detectProtocol reads the server's version() and the session's default
// isolation through conn and returns the protocol ProtocolAuto runs with
// on it.
func detectProtocol(ctx context.Context, conn *pgx.Conn) (Protocol, error) {
	var version, isolation string
	if err := conn.QueryRow(ctx, "SELECT version(), coalesce(current_setting('default_transaction_isolation', true), '')").Scan(&version, &isolation); err != nil {
		return 0, fmt.Errorf("idem: read the server version: %w", err)
	}
	return protocolFor(version, isolation), nil
}

// takeFailed rolls back a failed attempt to take the key (step names it:
// claim or open) and returns its error: the in-progress refusal for a
// lock wait past its bound, otherwise err, observed as a rollback.
func (e *Executor) takeFailed(ctx context.Context, at *attempt, step string, err error) error {
	rollback(ctx, at.conn)
	if isLockTimeout(err) {
		return e.waitTimedOut(ctx, at, "", err)
	}
	err = fmt.Errorf("idem: %s: %w", step, err)
	e.emit(ctx, at, EventRolledBack, at.op.ID, classify(err))
	return err
}
