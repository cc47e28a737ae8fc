package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// Protocol is the store protocol an Executor runs a keyed operation with.
type Protocol int

// The store protocols.
const (
	// ProtocolAuto chooses by the database engine, once, before the first
	// operation: ProtocolAdvisory on PostgreSQL, ProtocolClaimFirst on
	// CockroachDB, YugabyteDB and any other engine whose version() does
	// not read as PostgreSQL's.
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
// version() is version: the advisory protocol on PostgreSQL itself only.
// CockroachDB reports "CockroachDB CCL v…" and lacks a usable
// pg_advisory_xact_lock before its 2026 releases; YugabyteDB reports
// "PostgreSQL 11.2-YB-…" and has advisory locks only behind flags.
func protocolFor(version string) Protocol {
	if strings.HasPrefix(version, "PostgreSQL ") && !strings.Contains(version, "-YB-") {
		return ProtocolAdvisory
	}
	return ProtocolClaimFirst
}

// detectProtocol reads the server's version() through conn and returns
// the protocol ProtocolAuto runs with on it.
func detectProtocol(ctx context.Context, conn *pgx.Conn) (Protocol, error) {
	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return 0, fmt.Errorf("idem: read the server version: %w", err)
	}
	return protocolFor(version), nil
}

// complete stores the response of a running operation and commits, as
// the executor's protocol does.
func (e *Executor) complete(ctx context.Context, conn *pgx.Conn, claim pgstore.Claim, done pgstore.Completion, rollbackBusiness bool) error {
	if e.currentProtocol() == ProtocolAdvisory {
		return e.insertRecord(ctx, conn, claim, done, rollbackBusiness)
	}
	return e.updateClaimed(ctx, conn, done, rollbackBusiness)
}

// takeFailed rolls back a failed attempt to take the key (step names it:
// claim or open) and returns its error: the in-progress refusal for a
// lock wait past its bound, otherwise err, observed as a rollback.
func (e *Executor) takeFailed(ctx context.Context, conn *pgx.Conn, c *Contract, call Call, op *Operation, step string, err error, start time.Time) error {
	rollback(ctx, conn)
	if isLockTimeout(err) {
		return e.refuse(ctx, c, call, start, inProgressEvent(c), &RefusalError{Err: ErrInProgress, RetryAfter: c.retryAfter()})
	}
	err = fmt.Errorf("idem: %s: %w", step, err)
	e.emit(ctx, c, call, EventRolledBack, start, op.ID, classify(err))
	return err
}
