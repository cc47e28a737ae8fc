package idem

// ProblemTypeBase is the prefix of every problem type URI the runtime
// answers with; the fragment names the section of docs/problems.md that
// documents it.
const ProblemTypeBase = "https://github.com/idemgen/idemgen/blob/main/docs/problems.md#"

// The problem types the runtime answers with (RFC 9457). They are stable:
// clients may switch on them.
const (
	ProblemKeyMissing       = ProblemTypeBase + "idempotency-key-missing"     // 400, ErrKeyMissing
	ProblemKeyMalformed     = ProblemTypeBase + "idempotency-key-malformed"   // 400, ErrKeyMalformed
	ProblemBodyTooLarge     = ProblemTypeBase + "request-body-too-large"      // 413, ErrBodyTooLarge
	ProblemInvalidBody      = ProblemTypeBase + "request-body-invalid"        // 400, ErrInvalidBody
	ProblemScopeUnavailable = ProblemTypeBase + "scope-unavailable"           // 403, the ScopeFunc failed
	ProblemFingerprint      = ProblemTypeBase + "idempotency-key-reused"      // 422, ErrFingerprintMismatch
	ProblemInProgress       = ProblemTypeBase + "operation-in-progress"       // 409, ErrInProgress
	ProblemExpired          = ProblemTypeBase + "operation-expired"           // 409, ErrExpired
	ProblemRequiresRecovery = ProblemTypeBase + "operation-requires-recovery" // 409, ErrRequiresRecovery
	ProblemInternal         = ProblemTypeBase + "internal-error"              // 500, nothing disclosed
	ProblemNaturalKeyExists = ProblemTypeBase + "natural-key-exists"          // 409, another operation created the entity
	ProblemUnavailable      = ProblemTypeBase + "temporarily-unavailable"     // 503, ErrUnavailable, with Retry-After
	// 415, ErrUnsupportedMediaType, with Accept-Post (Accept-Patch for PATCH)
	ProblemUnsupportedMediaType = ProblemTypeBase + "unsupported-media-type"
	// 408, the request body did not arrive within the server's read timeout
	ProblemRequestTimeout = ProblemTypeBase + "request-timeout"
	// 503, with Retry-After: the request's deadline passed (error class
	// timeout; the error wraps context.DeadlineExceeded), nothing kept
	ProblemDeadlineExceeded = ProblemTypeBase + "deadline-exceeded"
	// 429, ErrScopeBusy, with Retry-After
	ProblemScopeBusy = ProblemTypeBase + "scope-busy"
	// 410, ErrResourceGone: under replay: current, what the operation
	// created no longer exists
	ProblemResourceGone = ProblemTypeBase + "resource-gone"
	// 401, a webhook whose signature or timestamp does not verify; nothing recorded
	ProblemWebhookSignature = ProblemTypeBase + "webhook-signature-invalid"
	// 500, a webhook whose handler failed; its attempt counted, nothing else kept
	ProblemWebhookFailed = ProblemTypeBase + "webhook-handler-failed"
	// 405, with Allow: a webhook receiver takes POST only
	ProblemMethodNotAllowed = ProblemTypeBase + "method-not-allowed"
	// 401, with WWW-Authenticate: the ScopeFunc returned an *Unauthenticated
	ProblemUnauthenticated = ProblemTypeBase + "authentication-required"
)
