package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/form"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/jsondecode"
)

// ProblemTypeBase is the prefix of every problem type URI; the fragment
// names the section of docs/problems.md that documents it.
const ProblemTypeBase = "https://github.com/idemgen/idemgen/blob/main/docs/problems.md#"

// The problem types the runtime answers with (RFC 9457). They are stable:
// clients may switch on them.
const (
	ProblemKeyMissing           = ProblemTypeBase + "idempotency-key-missing"
	ProblemKeyMalformed         = ProblemTypeBase + "idempotency-key-malformed"
	ProblemBodyTooLarge         = ProblemTypeBase + "request-body-too-large"
	ProblemInvalidBody          = ProblemTypeBase + "request-body-invalid"
	ProblemScopeUnavailable     = ProblemTypeBase + "scope-unavailable"
	ProblemUnauthenticated      = ProblemTypeBase + "authentication-required"
	ProblemScopeBusy            = ProblemTypeBase + "scope-busy"
	ProblemFingerprint          = ProblemTypeBase + "idempotency-key-reused"
	ProblemInProgress           = ProblemTypeBase + "operation-in-progress"
	ProblemExpired              = ProblemTypeBase + "operation-expired"
	ProblemRequiresRecovery     = ProblemTypeBase + "operation-requires-recovery"
	ProblemInternal             = ProblemTypeBase + "internal-error"
	ProblemNaturalKeyExists     = ProblemTypeBase + "natural-key-exists"
	ProblemUnavailable          = ProblemTypeBase + "temporarily-unavailable"
	ProblemDeadlineExceeded     = ProblemTypeBase + "deadline-exceeded"
	ProblemUnsupportedMediaType = ProblemTypeBase + "unsupported-media-type"
	ProblemRequestTimeout       = ProblemTypeBase + "request-timeout"
	ProblemResourceGone         = ProblemTypeBase + "resource-gone"
	ProblemWebhookSignature     = ProblemTypeBase + "webhook-signature-invalid"
	ProblemWebhookFailed        = ProblemTypeBase + "webhook-handler-failed"
	ProblemMethodNotAllowed     = ProblemTypeBase + "method-not-allowed"
)

// Problem is an RFC 9457 problem details object.
type Problem struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Status      int    `json:"status"`
	Detail      string `json:"detail,omitempty"`
	OperationID string `json:"operation_id,omitempty"` // for support, on operation-expired, operation-requires-recovery and resource-gone
	// Violations lists every violation of the request's schema, on
	// request-body-invalid (an RFC 9457 extension member).
	Violations []jsondecode.Violation `json:"violations,omitempty"`
	retryAfter time.Duration
	// accept lists the media types an unsupported-media-type request may
	// have, sent in acceptHeader (Accept-Post or Accept-Patch); or the
	// methods of Allow, or the challenge of WWW-Authenticate.
	accept       []string
	acceptHeader string
}

// problemFor maps an error of the key, body, scope and execution stages to
// its problem. Unknown errors are a 500 that discloses nothing.
func problemFor(err error) *Problem {
	if p := requestProblem(err); p != nil {
		return p
	}
	var ref *core.RefusalError
	if errors.As(err, &ref) {
		switch ref.Err {
		case core.ErrFingerprintMismatch:
			return &Problem{Type: ProblemFingerprint, Title: "Idempotency key reused", Status: http.StatusUnprocessableEntity,
				Detail: "This idempotency key was already used for a different request. Use a new key for a new request."}
		case core.ErrInProgress:
			return &Problem{Type: ProblemInProgress, Title: "Operation in progress", Status: http.StatusConflict,
				Detail: "A request with this idempotency key is still being processed. Retry later.", retryAfter: ref.RetryAfter}
		case core.ErrExpired:
			return &Problem{Type: ProblemExpired, Title: "Operation expired", Status: http.StatusConflict,
				Detail: "The operation with this idempotency key is past its retention; it is not executed again.", OperationID: ref.OperationID}
		case core.ErrScopeBusy:
			return &Problem{Type: ProblemScopeBusy, Title: "Too many operations of this scope", Status: http.StatusTooManyRequests,
				Detail:     "Your operations already use their share of this service while it is busy; nothing of this request ran or was kept. Retry the same request later.",
				retryAfter: ref.RetryAfter}
		case core.ErrResourceGone:
			return &Problem{Type: ProblemResourceGone, Title: "Resource gone", Status: http.StatusGone,
				Detail: "The operation with this idempotency key completed, but what it created no longer exists. It is not executed again; its first answer is kept for support under the operation id.", OperationID: ref.OperationID}
		case core.ErrRequiresRecovery:
			return &Problem{Type: ProblemRequiresRecovery, Title: "Operation requires recovery", Status: http.StatusConflict,
				Detail: "The outcome of the first attempt is unknown; contact support with the operation id.", OperationID: ref.OperationID}
		}
	}
	switch {
	case errors.Is(err, ErrKeyMissing):
		return &Problem{Type: ProblemKeyMissing, Title: "Idempotency key missing", Status: http.StatusBadRequest,
			Detail: "This operation requires an idempotency key."}
	case errors.Is(err, ErrKeyMalformed):
		return &Problem{Type: ProblemKeyMalformed, Title: "Idempotency key malformed", Status: http.StatusBadRequest,
			Detail: strings.TrimPrefix(err.Error(), "idem: ")}
	case errors.Is(err, ErrBodyTooLarge):
		p := &Problem{Type: ProblemBodyTooLarge, Title: "Request body too large", Status: http.StatusRequestEntityTooLarge}
		if part := (*form.TooLargeError)(nil); errors.As(err, &part) {
			p.Detail = "The file part " + strconv.Quote(part.Key) + " is " + strconv.FormatInt(part.Size, 10) + " bytes, at most " + strconv.FormatInt(part.Max, 10) + " allowed."
		}
		return p
	case errors.Is(err, errBodyTimeout):
		return &Problem{Type: ProblemRequestTimeout, Title: "Request timeout", Status: http.StatusRequestTimeout,
			Detail: "The request body did not arrive in time. Nothing ran and nothing was kept: send the request again."}
	case errors.Is(err, ErrInvalidBody):
		return &Problem{Type: ProblemInvalidBody, Title: "Request body invalid", Status: http.StatusBadRequest,
			Detail: strings.TrimPrefix(err.Error(), "idem: ")}
	case errors.Is(err, core.ErrConnectionLost):
		return &Problem{Type: ProblemUnavailable, Title: "Temporarily unavailable", Status: http.StatusServiceUnavailable,
			Detail: "The service lost its connection to its database (a restart or a failover). Retry the same request with the same " +
				"idempotency key later: it is answered with what this request stored if it was kept, and runs once if it was not.",
			retryAfter: time.Second}
	case errors.Is(err, core.ErrUnavailable):
		return &Problem{Type: ProblemUnavailable, Title: "Temporarily unavailable", Status: http.StatusServiceUnavailable,
			Detail: "The request could not run now and nothing of it was kept. Retry the same request later.", retryAfter: time.Second}
	case deadlineExceeded(err):
		return deadlineProblem("The request's deadline passed before it was answered; nothing of it was kept. " +
			"Retry the same request with the same idempotency key: it runs once.")
	case errors.Is(err, errScope):
		return &Problem{Type: ProblemScopeUnavailable, Title: "Scope unavailable", Status: http.StatusForbidden}
	}
	return &Problem{Type: ProblemInternal, Title: "Internal error", Status: http.StatusInternalServerError}
}

// deadlineExceeded reports an error of class timeout: the request's own
// deadline passed (its context, or the server's lock_timeout set from it),
// as core classifies it: not a cancellation, and not a failure a retry
// overcomes that wraps ErrUnavailable (tested before this).
func deadlineExceeded(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled)
}

// deadlineProblem is the answer to a request whose deadline passed: a 503
// the client retries with the same key, after a second as the other 503s.
// The attempt rolled back, or gave its lease up, so the key is free at
// once; the client's deadline, not the service's state, ended it, and
// waiting longer (the wait-timeout, say) would not make a retry more
// likely to run.
func deadlineProblem(detail string) *Problem {
	return &Problem{Type: ProblemDeadlineExceeded, Title: "Deadline exceeded", Status: http.StatusServiceUnavailable,
		Detail: detail, retryAfter: time.Second}
}

// write sends p as application/problem+json.
func (p *Problem) write(w http.ResponseWriter) {
	body, err := json.Marshal(p)
	if err != nil {
		http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	if p.retryAfter > 0 {
		h.Set("Retry-After", strconv.FormatInt(int64(p.retryAfter/time.Second), 10))
	}
	if len(p.accept) > 0 {
		h.Set(p.acceptHeader, strings.Join(p.accept, ", "))
	}
	w.WriteHeader(p.Status)
	_, _ = w.Write(body)
}
