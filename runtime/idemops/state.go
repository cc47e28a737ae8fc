package idemops

import (
	"fmt"
	"slices"
)

// OperationState is an operation's state as every view shows it, derived
// from its record on the database's clock (see ListOperations' query).
type OperationState string

// The operation states. A retry of an operation that is expired or a
// tombstone is answered operation-expired and never runs again.
const (
	OperationInProgress       OperationState = "in_progress"       // an attempt holds it (never committed in atomic mode)
	OperationCompleted        OperationState = "completed"         // its response is stored and replayed
	OperationFailed           OperationState = "failed"            // a final failure (such as a 409) is stored and replayed
	OperationRequiresRecovery OperationState = "requires_recovery" // its outcome is unknown; a person decides
	OperationExpired          OperationState = "expired"           // past retention; the sweeper has not made it a tombstone yet
	OperationTombstone        OperationState = "tombstone"         // past retention, its response dropped, until the tombstone period ends
	OperationSwept            OperationState = "swept"             // the record is deleted (the key is forgotten); only its effects remain
)

// OperationStates lists the operation states in the order of their life.
func OperationStates() []OperationState {
	return []OperationState{OperationInProgress, OperationCompleted, OperationFailed, OperationRequiresRecovery,
		OperationExpired, OperationTombstone, OperationSwept}
}

// LeaseState is the lease of an operation in progress after a recovery
// point, derived with its state (see ListOperations' query).
type LeaseState string

// The lease states.
const (
	LeaseLive    LeaseState = "live"    // an attempt holds the operation until Progress.LeaseUntil
	LeaseExpired LeaseState = "expired" // it ran out: the next retry or the completer takes the operation over, from its last recovery point
	LeaseHalted  LeaseState = "halted"  // none runs: the operation is in requires_recovery and waits for a person
)

// EffectState is an effect's state as every view shows it, derived from
// its outbox row on the database's clock (see ListEffects' query).
type EffectState string

// The effect states. Only an effect in requires_recovery or dead waits
// for a person: Resolve and Retry move nothing else.
const (
	EffectPending          EffectState = "pending"           // due at its due time (again, after a lease ran out)
	EffectRunning          EffectState = "running"           // a worker's lease holds it
	EffectDone             EffectState = "done"              // the provider did it
	EffectFailed           EffectState = "failed"            // the provider refused it for good, or support resolved it so
	EffectRequiresRecovery EffectState = "requires_recovery" // its outcome is unknown under the halt policy
	EffectDead             EffectState = "dead"              // its attempts ran out
)

// EffectStates lists the effect states in the order of their life.
func EffectStates() []EffectState {
	return []EffectState{EffectPending, EffectRunning, EffectDone, EffectFailed, EffectRequiresRecovery, EffectDead}
}

// waitsForPerson reports whether support may act on an effect in s.
func (s EffectState) waitsForPerson() bool { return s == EffectRequiresRecovery || s == EffectDead }

// checkState refuses a state filter that is not one of states; "" is no
// filter.
func checkState[S ~string](s S, states []S) error {
	if s == "" || slices.Contains(states, s) {
		return nil
	}
	return invalid(fmt.Sprintf("state %q: want one of %v", s, states), nil)
}
