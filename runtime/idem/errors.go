package idem

import (
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// Sentinel errors, usable with errors.Is. Each is the reason of one
// problem the runtime answers with (docs/problems.md names them).
var (
	// ErrKeyMissing: the contract requires a key and none was sent (400).
	ErrKeyMissing = httpapi.ErrKeyMissing
	// ErrKeyMalformed: the key is empty, too long or not parseable (400).
	ErrKeyMalformed = httpapi.ErrKeyMalformed
	// ErrBodyTooLarge: the request body exceeds the contract's limit (413).
	ErrBodyTooLarge = httpapi.ErrBodyTooLarge
	// ErrInvalidBody: the body cannot be decoded or fingerprinted (400).
	ErrInvalidBody = httpapi.ErrInvalidBody
	// ErrUnsupportedMediaType: the body's Content-Type is not one the
	// operation declares (415).
	ErrUnsupportedMediaType = httpapi.ErrUnsupportedMediaType
	// ErrFingerprintMismatch: the key was used for a different request (422).
	ErrFingerprintMismatch = core.ErrFingerprintMismatch
	// ErrInProgress: the first request with the key still runs (409 with
	// Retry-After).
	ErrInProgress = core.ErrInProgress
	// ErrExpired: the key's record is past retention; the operation is
	// never run again (409).
	ErrExpired = core.ErrExpired
	// ErrRequiresRecovery: the first attempt's outcome is unknown and an
	// operator must resolve it (409).
	ErrRequiresRecovery = core.ErrRequiresRecovery
	// ErrTxOwnedByExecutor is returned by Commit and Rollback of the
	// transaction a business method gets: the executor commits it together
	// with the stored response, or rolls it back.
	ErrTxOwnedByExecutor = core.ErrTxOwnedByExecutor
	// ErrUnavailable: no pool connection within Config.AcquireTimeout, or
	// the business transaction lost a deadlock or a serialization conflict;
	// nothing was kept and the key is free (503 with Retry-After). Also the
	// connection to the database could not be opened or broke (class
	// ClassConnection, a restart or a failover): lost at COMMIT, the
	// operation may have committed, and a retry with the same key is then
	// answered from its record; otherwise the retry runs it.
	ErrUnavailable = core.ErrUnavailable
	// ErrResourceGone: returned by an operation's Current hook (replay:
	// current) when what the operation created no longer exists; the
	// replay answers 410 resource-gone with the operation's id and the
	// operation is not run again.
	ErrResourceGone = core.ErrResourceGone
	// ErrScopeBusy: the request's scope ran its share of the operations
	// the executor runs at once (Config.ScopeShare) until the acquire
	// deadline; nothing ran or was kept (429 with Retry-After).
	ErrScopeBusy = core.ErrScopeBusy
)
