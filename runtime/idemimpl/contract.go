package idemimpl

import "github.com/idemgen/idemgen/runtime/internal/httpapi"

// Contract is one operation's x-idempotency block in run-time form, every
// field written out by the generator. A zero field means exactly the value
// of runtime/defaults or is refused when the handler is built. In
// particular KeySpec.Optional false is a required key, and StoreFailures
// empty is every 4xx unless StoreNoFailures is set.
type Contract = httpapi.Contract

// KeySpec says where the idempotency key is found.
type KeySpec = httpapi.KeySpec

// Concurrency is the policy for a duplicate that arrives while the first
// request still runs.
type Concurrency = httpapi.Concurrency

// The concurrency policies; ConcurrencyWait is the zero value and the
// default.
const (
	ConcurrencyWait   = httpapi.ConcurrencyWait
	ConcurrencyReject = httpapi.ConcurrencyReject
)

// StatusClass matches response statuses: a class such as 4 (4xx) when
// Status is 0, or one exact Status.
type StatusClass = httpapi.StatusClass
