package engine

import (
	"errors"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// Sentinel errors, usable with errors.Is. The HTTP adapter maps each to its
// status and problem type (docs/problems.md); runtime/idem re-exports them.
var (
	// ErrKeyMissing: the contract requires a key and none was sent (400).
	ErrKeyMissing = errors.New("idem: idempotency key missing")
	// ErrKeyMalformed: the key is empty, too long or not parseable (400).
	ErrKeyMalformed = idemkey.ErrMalformed
	// ErrBodyTooLarge: the request body exceeds the contract's limit (413).
	ErrBodyTooLarge = errors.New("idem: request body too large")
	// ErrInvalidBody: the body cannot be fingerprinted, e.g. not JSON (400).
	ErrInvalidBody = errors.New("idem: request body invalid")
	// ErrFingerprintMismatch: the key was used for a different request (422).
	ErrFingerprintMismatch = errors.New("idem: idempotency key reused with a different request")
	// ErrInProgress: the first request with the key still runs; under
	// ConcurrencyWait the wait timed out (409 with Retry-After).
	ErrInProgress = errors.New("idem: operation in progress")
	// ErrExpired: the key's record is past retention; the operation is never
	// re-executed (409, operation-expired).
	ErrExpired = errors.New("idem: operation expired")
	// ErrRequiresRecovery: the first attempt's outcome is unknown and an
	// operator must resolve it (409, operation-requires-recovery).
	ErrRequiresRecovery = errors.New("idem: operation requires recovery")
	// ErrTxOwnedByExecutor is returned by Commit and Rollback of the
	// transaction handed to a business function: the executor commits it
	// together with the stored response, or rolls it back.
	ErrTxOwnedByExecutor = errors.New("idem: the transaction is owned by the executor")
)

// RefusalError is the error the executor returns when it answers from the
// record instead of running the operation: it wraps one of ErrInProgress,
// ErrExpired, ErrRequiresRecovery or ErrFingerprintMismatch.
type RefusalError struct {
	Err         error         // the sentinel
	OperationID string        // the record's operation id; empty for ErrFingerprintMismatch
	RetryAfter  time.Duration // advice for ErrInProgress
}

// Error returns the sentinel's message.
func (e *RefusalError) Error() string { return e.Err.Error() }

// Unwrap returns the sentinel.
func (e *RefusalError) Unwrap() error { return e.Err }
