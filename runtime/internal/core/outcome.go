package core

import "context"

// Outcome is what an attempt answers, opaque to the executor: the adapter
// writes it, the executor stores it with the record and hands it back on
// every replay, byte for byte.
type Outcome struct {
	Code int    // the adapter's code, such as an HTTP status; stored as an integer
	Meta []byte // a JSON document the adapter reads back (HTTP: the headers kept for replays); nil for none
	Body []byte
}

// Disposition is how an attempt ends, as its Func decides.
type Disposition int

// The dispositions; see Decision.
const (
	// Complete stores the Outcome as the operation's answer and commits
	// it with the business changes.
	Complete Disposition = iota + 1
	// Fail rolls the business changes back to the savepoint the Policy's
	// StoresFailures opens and stores the Outcome as a failure, which
	// every retry receives.
	Fail
	// Release rolls everything back; the key is free again and a retry
	// runs anew. The Outcome goes to this caller only. After a checkpoint
	// the key cannot be freed: the step rolls back and the operation is
	// left, its lease given up, for a retry to take over.
	Release
	// Checkpoint commits the business changes with a recovery point
	// (Point and State) and runs the Func again, in a new transaction,
	// with Operation.Resumed telling the point; After, when set, runs in
	// between, outside any transaction.
	Checkpoint
	// Halt commits the business changes and stops the operation for a
	// person to resolve: its outcome is unknown (an external call whose
	// result cannot be known, under the halt policy). The record goes to
	// requires_recovery, which every retry receives with the operation's
	// id; Point and State are kept for support to resume from. Only after
	// a checkpoint.
	Halt
)

// Decision is how a Func ends its step: a Disposition and, for Complete,
// Fail and Release, the Outcome; for Checkpoint and Halt, the recovery
// point.
type Decision struct {
	Disposition Disposition
	Outcome     Outcome
	Point       string // Checkpoint, Halt: the recovery point's name, not empty
	State       []byte // Checkpoint, Halt: what the next step needs, opaque to the executor
	// After, on a Checkpoint, runs once the recovery point is committed
	// and before the next step's transaction begins, with no transaction
	// open and the attempt's lease held (not the operation's row): the
	// place for a call outside the database, which must finish within the
	// lease. An error ends the attempt as an error of the Func would,
	// leaving the operation at the recovery point for a retry or the
	// completer.
	After func(ctx context.Context) error
}

// Completed is the decision that stores o as the operation's answer.
func Completed(o Outcome) Decision { return Decision{Disposition: Complete, Outcome: o} }

// Failed is the decision that rolls the business back and stores o as a
// failure.
func Failed(o Outcome) Decision { return Decision{Disposition: Fail, Outcome: o} }

// Released is the decision that rolls everything back, frees the key and
// answers o to this caller only.
func Released(o Outcome) Decision { return Decision{Disposition: Release, Outcome: o} }

// CheckpointAt is the decision that commits the step as the recovery point
// point with state, and continues.
func CheckpointAt(point string, state []byte) Decision {
	return Decision{Disposition: Checkpoint, Point: point, State: state}
}

// Halted is the decision that commits the step and stops the operation at
// the recovery point point with state, for a person to resolve.
func Halted(point string, state []byte) Decision {
	return Decision{Disposition: Halt, Point: point, State: state}
}

// Result is the answer to an attempt.
type Result struct {
	Outcome     Outcome
	OperationID string
	Replayed    bool // Outcome is the stored answer of an earlier attempt, or with Current its current representation
	Current     bool // Outcome is what Attempt.Current answered for the completed operation, not its stored answer
	Stored      bool // Outcome was stored with the record by this attempt
}
