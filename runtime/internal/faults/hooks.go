package faults

import (
	"context"
	"fmt"
)

// Point names a fault-injection point of the executor.
type Point string

// The fault-injection points, in execution order.
const (
	// WaitingForFirst: a duplicate starts waiting, without a connection,
	// for the first attempt its own process runs (an observation point: a
	// hook's error is ignored).
	WaitingForFirst Point = "waiting-for-first"
	AfterClaim      Point = "after-claim"    // key claimed, business function not yet run
	AfterBusiness   Point = "after-business" // business function returned, nothing stored yet
	// AfterCheckpoint: a step committed its recovery point; the next step
	// has not begun.
	AfterCheckpoint Point = "after-checkpoint"
	AfterCommit     Point = "after-commit" // committed; the response is not yet written
)

// Hook runs at a point with the id of the operation that reached it.
type Hook = func(ctx context.Context, operationID string) error

// Hooks are the hooks of one executor; a nil hook does nothing.
type Hooks struct {
	WaitingForFirst Hook
	AfterClaim      Hook
	AfterBusiness   Hook
	AfterCheckpoint Hook
	AfterCommit     Hook
}

// Run runs the hook at p, if any, and wraps its error in an *Error.
func (h *Hooks) Run(ctx context.Context, p Point, operationID string) error {
	var f Hook
	switch p {
	case WaitingForFirst:
		f = h.WaitingForFirst
	case AfterClaim:
		f = h.AfterClaim
	case AfterBusiness:
		f = h.AfterBusiness
	case AfterCheckpoint:
		f = h.AfterCheckpoint
	case AfterCommit:
		f = h.AfterCommit
	}
	if f == nil {
		return nil
	}
	if err := f(ctx, operationID); err != nil {
		return &Error{Point: p, Err: err}
	}
	return nil
}

// Error wraps the error a hook returned, naming the point. After
// AfterCommit the operation is committed: the HTTP adapter drops the
// response.
type Error struct {
	Point Point
	Err   error
}

// Error names the point and the hook's error.
func (e *Error) Error() string { return fmt.Sprintf("faults: hook %s: %v", e.Point, e.Err) }

// Unwrap returns the hook's error.
func (e *Error) Unwrap() error { return e.Err }
