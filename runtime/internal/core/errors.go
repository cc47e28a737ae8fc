package core

import (
	"errors"
	"time"
)

// Sentinel errors, usable with errors.Is. Adapters map each to their
// transport (runtime/internal/httpapi to a status and a problem type,
// docs/problems.md); runtime/idem re-exports them.
var (
	// ErrFingerprintMismatch: the key was used for a different request.
	ErrFingerprintMismatch = errors.New("idem: idempotency key reused with a different request")
	// ErrInProgress: another attempt holds the key; under ConcurrencyWait
	// the wait timed out.
	ErrInProgress = errors.New("idem: operation in progress")
	// ErrExpired: the key's record is past retention; the operation is
	// never run again.
	ErrExpired = errors.New("idem: operation expired")
	// ErrRequiresRecovery: the first attempt's outcome is unknown and an
	// operator must resolve it.
	ErrRequiresRecovery = errors.New("idem: operation requires recovery")
	// ErrTxOwnedByExecutor is returned by Commit and Rollback of the
	// transaction handed to a Func: the executor commits it together
	// with the record, or rolls it back.
	ErrTxOwnedByExecutor = errors.New("idem: the transaction is owned by the executor")
	// ErrFenced: the attempt's lease ran out and another attempt took the
	// operation over with a newer fencing token; nothing of this step was
	// committed.
	ErrFenced = errors.New("idem: the operation was taken over by another attempt")
	// ErrScopeBusy: the request's scope already runs its share of
	// operations at once (Config.ScopeShare); nothing ran or was kept.
	ErrScopeBusy = errors.New("idem: the scope runs its share of operations")
)

// RefusalError is the error the executor returns when it answers from the
// record instead of running the operation: it wraps one of ErrInProgress,
// ErrExpired, ErrRequiresRecovery, ErrFingerprintMismatch or, under replay:
// current, ErrResourceGone; or when it refuses to start it, ErrScopeBusy.
type RefusalError struct {
	Err         error         // the sentinel
	OperationID string        // the record's operation id; empty for ErrFingerprintMismatch
	RetryAfter  time.Duration // advice for ErrInProgress and ErrScopeBusy
}

// Error returns the sentinel's message.
func (e *RefusalError) Error() string { return e.Err.Error() }

// Unwrap returns the sentinel.
func (e *RefusalError) Unwrap() error { return e.Err }
