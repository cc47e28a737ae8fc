package idem

import "context"

// HookPoint names a fault-injection point of the executor.
type HookPoint string

// The fault-injection points, in execution order.
const (
	HookAfterClaim    HookPoint = "after-claim"    // key claimed, business function not yet run
	HookAfterBusiness HookPoint = "after-business" // business function returned, nothing stored yet
	HookAfterCommit   HookPoint = "after-commit"   // committed; the response is not yet written
)

// Hooks are fault-injection points for tests (runtime/idemtest builds
// them); production code leaves them nil. A hook may block (to hold a
// request mid-transaction) or return an error: before the commit that rolls
// the transaction back; after it, the HTTP adapter drops the response.
type Hooks struct {
	AfterClaim    func(ctx context.Context, op *Operation) error
	AfterBusiness func(ctx context.Context, op *Operation) error
	AfterCommit   func(ctx context.Context, op *Operation) error
}

func (h *Hooks) run(ctx context.Context, p HookPoint, op *Operation) error {
	var f func(context.Context, *Operation) error
	switch p {
	case HookAfterClaim:
		f = h.AfterClaim
	case HookAfterBusiness:
		f = h.AfterBusiness
	case HookAfterCommit:
		f = h.AfterCommit
	}
	if f == nil {
		return nil
	}
	if err := f(ctx, op); err != nil {
		return &HookError{Point: p, Err: err}
	}
	return nil
}
