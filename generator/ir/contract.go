package ir

import "time"

// Contract is an operation's x-idempotency block as the generated code
// hands it to the runtime, every value decided: defaults applied,
// durations parsed, store-failures turned into classes and statuses. It is
// the generator's own description, in its own types; the emitter alone
// knows how the runtime spells it (runtime/idemimpl's Contract).
type Contract struct {
	// Operation is the operationId; Method and Route are the operation's
	// HTTP method and its path as the spec writes it.
	Operation string
	Method    string
	Route     string
	// PathParams are the names of the path parameters, sorted; nil without
	// any.
	PathParams []string
	// MediaTypes are the request body's media types the operation takes
	// (BodyType.Accept); nil without a body.
	MediaTypes []string
	Key        Key
	// Fingerprint is the contract's fingerprint selection as pointers.
	Fingerprint FingerprintSpec
	Retention   time.Duration
	Tombstone   time.Duration
	Concurrency Concurrency
	WaitTimeout time.Duration
	// StoreFailures lists the failures stored and replayed; empty with
	// StoreNoFailures set stores none, empty without it is the runtime's
	// default (every 4xx).
	StoreFailures   []StatusClass
	StoreNoFailures bool
	// ReplayCurrent answers a retry of a completed operation with the
	// current representation of what it created (replay: current), from
	// the operation's Current method.
	ReplayCurrent bool
	// Lease is how long an attempt of a phased operation holds it between
	// recovery points; 0 for an atomic operation.
	Lease time.Duration
}

// Key says where the idempotency key is: a header or a JSON pointer into
// the body, one of the two set.
type Key struct {
	Header      string
	BodyPointer string
	// Optional lets a request without a key run unprotected.
	Optional  bool
	MaxLength int
}

// FingerprintSpec is the fingerprint selection of a contract: JSON
// pointers as the spec writes them, nil when there are none.
type FingerprintSpec struct {
	Include   []string
	Exclude   []string
	Unordered []string
}

// Concurrency is the policy for a duplicate that arrives while the first
// request still runs.
type Concurrency string

// The concurrency policies, worded as the spec words them.
const (
	ConcurrencyWait   Concurrency = "wait"
	ConcurrencyReject Concurrency = "reject"
)

// StatusClass is one entry of store-failures: a class such as 4 (4xx)
// when Status is 0, or one exact Status.
type StatusClass struct {
	Class  int
	Status int
}
