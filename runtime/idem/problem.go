package idem

import "github.com/idemgen/idemgen/runtime/internal/engine"

// ProblemTypeBase is the prefix of every problem type URI the runtime
// answers with; the fragment names the section of docs/problems.md that
// documents it.
const ProblemTypeBase = engine.ProblemTypeBase

// The problem types the runtime answers with (RFC 9457). They are stable:
// clients may switch on them.
const (
	ProblemKeyMissing       = engine.ProblemKeyMissing       // 400, ErrKeyMissing
	ProblemKeyMalformed     = engine.ProblemKeyMalformed     // 400, ErrKeyMalformed
	ProblemBodyTooLarge     = engine.ProblemBodyTooLarge     // 413, ErrBodyTooLarge
	ProblemInvalidBody      = engine.ProblemInvalidBody      // 400, ErrInvalidBody
	ProblemScopeUnavailable = engine.ProblemScopeUnavailable // 403, the ScopeFunc failed
	ProblemFingerprint      = engine.ProblemFingerprint      // 422, ErrFingerprintMismatch
	ProblemInProgress       = engine.ProblemInProgress       // 409, ErrInProgress
	ProblemExpired          = engine.ProblemExpired          // 409, ErrExpired
	ProblemRequiresRecovery = engine.ProblemRequiresRecovery // 409, ErrRequiresRecovery
	ProblemInternal         = engine.ProblemInternal         // 500, nothing disclosed
	ProblemNaturalKeyExists = engine.ProblemNaturalKeyExists // 409, another operation created the entity
)
