package outbox

import "time"

// EffectEventKind is what happened to one effect.
type EffectEventKind int

// The effect event kinds, for metrics.
const (
	EventDone      EffectEventKind = iota + 1 // the provider did it (or Verify said it had)
	EventRetried                              // not done or unknown: scheduled again after a backoff
	EventVerified                             // Verify answered after an unknown outcome
	EventHalted                               // an unknown outcome under halt: requires_recovery
	EventDead                                 // the attempts ran out: dead
	EventFailed                               // the provider refused for good
	EventFenced                               // the lease was taken over before the outcome was recorded; nothing was recorded
	EventOldestDue                            // a gauge reading: Age is how long the oldest due effect has waited (0: none)
)

var eventNames = [...]string{
	EventDone: "done", EventRetried: "retried", EventVerified: "verified", EventHalted: "halted",
	EventDead: "dead", EventFailed: "failed", EventFenced: "fenced", EventOldestDue: "oldest-due",
}

// String returns the kind's metric label.
func (k EffectEventKind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "unknown"
}

// EffectEvent is one observation of the worker.
type EffectEvent struct {
	Kind      EffectEventKind
	Operation string        // the operation that enqueued the effect ("" for EventOldestDue)
	Effect    string        // the effect's name ("" for EventOldestDue)
	Attempt   int           // the attempt the event ends
	Duration  time.Duration // the provider call's duration (Do and Verify)
	Age       time.Duration // EventOldestDue only
}
