package idem

import (
	"time"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// Observer receives events, synchronously and from many goroutines at
// once; it must be quick and safe for concurrent use.
type Observer interface {
	Observe(Event)
}

// Event is one observation. A waited duplicate reports EventWaited and then
// EventReplay.
type Event struct {
	Kind      EventKind
	Operation string        // the contract's operation name
	Duration  time.Duration // from the start of the execution to the decision
	Class     ErrorClass    // why an EventRolledBack or EventUnavailable failed; "" otherwise
	Effect    string        // EventEffectEnqueued only: the effect's name
}

// EventKind is what happened to one request.
type EventKind int

// The event kinds, for metrics (DESIGN.md section 5).
const (
	EventNew              EventKind = iota + 1 // the operation ran and committed
	EventReplay                                // a stored response was replayed
	EventConflict                              // same key, different fingerprint (422)
	EventWaited                                // a duplicate waited for a running first request, then replayed
	EventWaitTimeout                           // a duplicate waited wait-timeout and got 409
	EventRejectInProgress                      // a duplicate got 409 at once under reject
	EventExpired                               // a retry after retention (409 operation-expired)
	EventRolledBack                            // the operation failed and was rolled back, freeing the key
	EventRequiresRecovery                      // a retry of an operation whose outcome is unknown (409)
	EventUnavailable                           // no pool connection within the acquire timeout (503)
	EventEffectEnqueued                        // an effect of a committed operation is in the outbox; one per effect, after EventNew
	EventCheckpoint                            // a step committed a recovery point and the operation went on
	EventTakenOver                             // a retry took over an operation whose lease ran out, to resume it from its last recovery point
	EventScopeBusy                             // the scope ran its share of operations until the acquire deadline (429)
)

// String returns the kind's metric label, such as "replay".
func (k EventKind) String() string { return core.EventKind(k).String() }

// ErrorClass says where the error of a failed operation came from, for
// metrics and alerts; the set is closed (docs/problems.md lists it).
type ErrorClass string

// The error classes.
const (
	ClassBusiness   ErrorClass = "business"   // the business method returned an error that is not a Rejection
	ClassDatabase   ErrorClass = "database"   // PostgreSQL failed a statement: 500
	ClassConnection ErrorClass = "connection" // the connection to PostgreSQL could not be opened or broke (a restart, a failover): 503, retry; lost at COMMIT, the retry is answered from what committed
	ClassTransient  ErrorClass = "transient"  // a deadlock or serialization failure (40P01, 40001), or a lease taken over (ErrFenced): 503, retry
	ClassSaturated  ErrorClass = "saturated"  // no pool connection within Config.AcquireTimeout: 503, retry
	ClassTimeout    ErrorClass = "timeout"    // the request's context deadline passed: 503, retry
	ClassCanceled   ErrorClass = "canceled"   // the request's context was canceled: the client went away
	ClassPanic      ErrorClass = "panic"      // the business method panicked
	ClassInternal   ErrorClass = "internal"   // anything else: a bug in the runtime or the generated code
)
