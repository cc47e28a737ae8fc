package core

import (
	"context"
	"log/slog"
	"time"
)

// EventKind is what happened to one request.
type EventKind int

// The event kinds, for metrics (DESIGN.md section 5); runtime/idem
// re-exports them.
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
	EventEffectEnqueued                        // an effect of a committed operation is in the outbox (Event.Effect names it)
	EventCheckpoint                            // a step committed a recovery point and the operation goes on
	EventTakenOver                             // a retry took over an operation whose lease ran out, to resume it
	EventScopeBusy                             // the request's scope ran its share of operations until the acquire deadline (429)
)

var eventNames = [...]string{
	EventNew: "new", EventReplay: "replay", EventConflict: "conflict", EventWaited: "waited",
	EventWaitTimeout: "wait-timeout", EventRejectInProgress: "reject-in-progress",
	EventExpired: "expired", EventRolledBack: "rolled-back", EventRequiresRecovery: "requires-recovery",
	EventUnavailable:    "unavailable",
	EventEffectEnqueued: "effect-enqueued",
	EventCheckpoint:     "checkpoint",
	EventTakenOver:      "taken-over",
	EventScopeBusy:      "scope-busy",
}

// String returns the kind's metric label.
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "unknown"
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

// refuse reports a refusal and returns it.
func (e *Executor) refuse(ctx context.Context, at *attempt, kind EventKind, err *RefusalError) error {
	e.emit(ctx, at, kind, err.OperationID, "")
	return err
}

// emit reports an event of an attempt to the observer and, at Debug, to
// the log.
func (e *Executor) emit(ctx context.Context, at *attempt, kind EventKind, opID string, class ErrorClass) {
	d := time.Since(at.start)
	at.span.Event(kind.String(), opID)
	if e.observe != nil {
		e.observe(Event{Kind: kind, Operation: at.Policy.Operation, Duration: d, Class: class})
	}
	if !e.log.Enabled(ctx, slog.LevelDebug) {
		return // spares the key's HMAC on every call when debug logging is off
	}
	e.log.LogAttrs(ctx, slog.LevelDebug, "idempotent operation",
		slog.String("operation", at.Policy.Operation), slog.String("outcome", kind.String()),
		slog.String("key_hash", e.keyHash(at.Scope, at.Key)), slog.String("operation_id", opID),
		slog.Duration("duration", d))
}
