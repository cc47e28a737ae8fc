package core

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// AttemptState is what became of an attempt, as a status lookup tells the
// client that sent it. It follows what a retry of the attempt would meet.
type AttemptState string

// The attempt states.
const (
	// AttemptInProgress: an attempt holds the key (the advisory
	// protocol's lock, or a record in progress after a recovery point).
	AttemptInProgress AttemptState = "in_progress"
	// AttemptCompleted: the operation's answer is stored; a retry replays it.
	AttemptCompleted AttemptState = "completed"
	// AttemptFailed: a final failure is stored; a retry receives it.
	AttemptFailed AttemptState = "failed"
	// AttemptRequiresRecovery: the outcome is unknown; a person decides,
	// and the operation id is what to quote to support.
	AttemptRequiresRecovery AttemptState = "requires_recovery"
	// AttemptExpired: the record is past retention (or a tombstone); a
	// retry is refused and never runs again.
	AttemptExpired AttemptState = "expired"
	// AttemptUnknown: no attempt of the operation holds the key in the
	// scope: never sent, sent in another scope, for another operation,
	// rolled back, or forgotten after the tombstone period.
	AttemptUnknown AttemptState = "unknown"
)

// Lookup names the attempt a status lookup asks for: the operation, and
// the key in its trusted scope, as the operation's own requests are.
type Lookup struct {
	Operation string // the operation's name, as its Policy.Operation
	Scope     string // from a trusted source, never the request's content
	Key       string // the parsed idempotency key, not empty
}

// AttemptStatus is the answer of a status lookup.
type AttemptStatus struct {
	State AttemptState
	// OperationID is the operation's id when its record exists; "" for
	// AttemptUnknown and for an attempt in progress that has written no
	// record yet.
	OperationID string
	// Outcome is the stored answer of an AttemptCompleted or
	// AttemptFailed operation, byte for byte as a retry replays it.
	Outcome *Outcome
}

// Status tells what became of the attempt l names, on the executor h
// holds, without running or changing anything. It reads through one
// statement (pgstore.LookUp) that does the same work whether the key is
// unknown or another scope's, so neither the answer nor its cost tells
// them apart; expiry is decided on the database's clock, as for a retry.
// It takes no place of the scope's share and does not read the replay
// cache, whose hits would answer faster than misses.
//
// Under ProtocolClaimFirst an atomic attempt's claim is not committed
// until the attempt ends, so a running attempt reads as AttemptUnknown
// until then; a retry with the key would still wait for it.
func Status(ctx context.Context, h Holder, l Lookup) (AttemptStatus, error) {
	e := Of(h)
	if e == nil || l.Operation == "" || l.Key == "" {
		return AttemptStatus{}, errors.New("idem: Status needs an executor, an operation and a key")
	}
	wait := e.acquireWait
	if wait == 0 {
		wait = defaults.WaitTimeout
	}
	actx, cancel := context.WithTimeoutCause(ctx, wait, errSaturated)
	pc, err := e.pool.Acquire(actx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(actx), errSaturated) {
			return AttemptStatus{}, fmt.Errorf("%w: %w", ErrUnavailable, errSaturated)
		}
		return AttemptStatus{}, fmt.Errorf("idem: status: %w", err)
	}
	defer pc.Release()
	if !e.schemaOK.Load() {
		if err := e.requireSchemaOn(ctx, pc.Conn()); err != nil {
			return AttemptStatus{}, err
		}
	}
	found, err := e.store.LookUp(ctx, pc.Conn(), l.Operation, l.Scope, l.Key, e.currentProtocol() == ProtocolAdvisory)
	if err != nil {
		err = unavailable(fmt.Errorf("idem: status: %w", err))
		e.log.ErrorContext(ctx, "idem: status lookup failed", "operation", l.Operation, "class", classify(err), "error", err)
		return AttemptStatus{}, err
	}
	rec := found.Record
	if rec == nil {
		if found.Locked {
			return AttemptStatus{State: AttemptInProgress}, nil
		}
		return AttemptStatus{State: AttemptUnknown}, nil
	}
	st := AttemptStatus{OperationID: formatUUID(rec.OperationID)}
	switch {
	case rec.Expired():
		st.State = AttemptExpired
	case rec.State == pgstore.StateRequiresRecovery:
		st.State = AttemptRequiresRecovery
	case rec.State == pgstore.StateCompleted, rec.State == pgstore.StateFailed:
		st.State = AttemptCompleted
		if rec.State == pgstore.StateFailed {
			st.State = AttemptFailed
		}
		st.Outcome = &Outcome{Code: rec.Status, Meta: rec.Header, Body: rec.Body}
	default:
		st.State = AttemptInProgress
	}
	return st, nil
}
