package httpapi

import (
	"errors"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

// The request errors of the HTTP adapter, usable with errors.Is; each
// answers with its problem (docs/problems.md) before anything is claimed.
// runtime/idem re-exports them.
var (
	// ErrKeyMissing: the contract requires a key and none was sent (400).
	ErrKeyMissing = errors.New("idem: idempotency key missing")
	// ErrKeyMalformed: the key is empty, too long or not parseable (400).
	ErrKeyMalformed = idemkey.ErrMalformed
	// ErrBodyTooLarge: the request body exceeds the contract's limit (413).
	ErrBodyTooLarge = errors.New("idem: request body too large")
	// ErrInvalidBody: the body cannot be decoded or fingerprinted (400).
	ErrInvalidBody = errors.New("idem: request body invalid")
)
