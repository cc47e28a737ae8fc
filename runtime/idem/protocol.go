package idem

import "github.com/idemgen/idemgen/runtime/internal/core"

// Protocol is the store protocol an Executor runs keyed operations with.
// Both keep the same guarantees (a concurrent duplicate never runs the
// business method, a crash before COMMIT leaves nothing, stored failures
// replay, the record's primary key is the final arbiter); they differ in
// cost and in what the database must support (docs/benchmarks.md).
type Protocol int

// The store protocols.
const (
	// ProtocolAuto, the zero value, chooses once, before the first
	// operation, from the server's version() and the session's
	// default_transaction_isolation: ProtocolAdvisory on PostgreSQL under
	// READ COMMITTED, ProtocolClaimFirst on CockroachDB, YugabyteDB, any
	// other engine, and under REPEATABLE READ or SERIALIZABLE (where the
	// advisory protocol's recheck would read a snapshot older than its
	// lock wait).
	ProtocolAuto Protocol = iota
	// ProtocolAdvisory writes the record once, completed with its
	// response, at the end of the business transaction; a concurrent
	// duplicate waits on a transaction-level advisory lock on the key's
	// 64-bit hash (pg_advisory_xact_lock). A replay is one round trip; a
	// new operation costs one round trip before the business method and
	// one after, as a bare transaction does. PostgreSQL under READ
	// COMMITTED only; while an operation runs, no row of it is visible to
	// anyone. Every replay, and every refusal under the reject policy, is
	// one round trip that ends its pipeline with a deliberate error, which
	// the server logs (docs/benchmarks.md).
	ProtocolAdvisory
	// ProtocolClaimFirst claims the key with an in-progress row (INSERT …
	// ON CONFLICT) on which a concurrent duplicate waits, and updates that
	// row with the response before COMMIT: the portable protocol, for
	// engines without usable advisory locks. A replay is two round trips.
	ProtocolClaimFirst
)

// String returns the protocol's name: auto, advisory or claim-first.
func (p Protocol) String() string { return core.Protocol(p).String() }
