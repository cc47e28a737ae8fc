package httpapi

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/idemgen/idemgen/runtime/jsondecode"
)

// ErrUnsupportedMediaType is the error of a body whose Content-Type is not
// one the operation declares, or is missing where the operation declares
// several (415, with the declared types in Accept-Post or Accept-Patch).
var ErrUnsupportedMediaType = errors.New("idem: unsupported media type")

// The bounds on values the store keeps in its primary keys: PostgreSQL's
// btree refuses an index row beyond about 2,700 bytes, and the scope, the
// key (at most its max-length) and the natural key share one row.
const (
	// MaxScopeBytes bounds the scope a ScopeFunc returns.
	MaxScopeBytes = 512
	// MaxNaturalKeyBytes bounds the canonical JSON of a natural key.
	MaxNaturalKeyBytes = 1024
)

// mediaTypeError is the 415 of a body whose media type the operation does
// not take; accept lists what it takes.
type mediaTypeError struct {
	method string
	got    string
	accept []string
}

func (e *mediaTypeError) Error() string {
	if e.got == "" {
		return fmt.Sprintf("%v: a body without Content-Type (want one of %s)", ErrUnsupportedMediaType, strings.Join(e.accept, ", "))
	}
	return fmt.Sprintf("%v: %s (want one of %s)", ErrUnsupportedMediaType, e.got, strings.Join(e.accept, ", "))
}

func (e *mediaTypeError) Unwrap() error { return ErrUnsupportedMediaType }

// checkMediaType accepts a non-empty body whose Content-Type is one of
// declared (compared without parameters, case-insensitively), and a body
// without Content-Type only when the operation declares exactly one type
// (RFC 9110 section 8.3 lets the recipient assume it). Two Content-Type
// fields are refused: which one a proxy in front read is not for the
// service to guess. An empty body is left to the decoder, which knows
// whether the body is required.
func checkMediaType(method string, declared []string, header http.Header, body []byte) error {
	if len(declared) == 0 || len(body) == 0 {
		return nil
	}
	if cts := header.Values("Content-Type"); len(cts) > 1 {
		return &mediaTypeError{method: method, got: strconv.Itoa(len(cts)) + " Content-Type fields, " + strings.Join(cts, " and "), accept: declared}
	}
	ct := header.Get("Content-Type")
	if ct == "" {
		if len(declared) == 1 {
			return nil
		}
		return &mediaTypeError{method: method, accept: declared}
	}
	got, _, err := mime.ParseMediaType(ct)
	if err == nil {
		for _, d := range declared {
			want, _, _ := strings.Cut(d, ";")
			if strings.EqualFold(strings.TrimSpace(want), got) {
				return nil
			}
		}
	}
	return &mediaTypeError{method: method, got: ct, accept: declared}
}

// checkScope refuses a scope the store cannot key a record by: not valid
// UTF-8, holding NUL, or longer than MaxScopeBytes. A scope comes from the
// server's own authentication, so this is a 403 that says why rather than
// a failed insert.
func checkScope(scope string) error {
	switch {
	case len(scope) > MaxScopeBytes:
		return &scopeError{fmt.Sprintf("the scope is %d bytes, at most %d allowed", len(scope), MaxScopeBytes)}
	case !utf8.ValidString(scope):
		return &scopeError{"the scope is not valid UTF-8"}
	case strings.IndexByte(scope, 0) >= 0:
		return &scopeError{"the scope contains NUL"}
	}
	return nil
}

// scopeError is a scope the store cannot hold; it answers 403
// scope-unavailable with the reason as detail, which names no value.
type scopeError struct{ reason string }

func (e *scopeError) Error() string { return errScope.Error() + ": " + e.reason }

func (e *scopeError) Unwrap() error { return errScope }

// requestProblem is the problem of the request checks' errors, nil for
// any other error.
func requestProblem(err error) *Problem {
	var mt *mediaTypeError
	var se *scopeError
	var ua *Unauthenticated
	var ve *jsondecode.Error
	switch {
	case errors.As(err, &ua):
		return unauthenticatedProblem(ua)
	case errors.As(err, &mt):
		return &Problem{Type: ProblemUnsupportedMediaType, Title: "Unsupported media type", Status: http.StatusUnsupportedMediaType,
			Detail: strings.TrimPrefix(mt.Error(), "idem: "), accept: mt.accept, acceptHeader: acceptHeader(mt.method)}
	case errors.As(err, &se):
		return &Problem{Type: ProblemScopeUnavailable, Title: "Scope unavailable", Status: http.StatusForbidden, Detail: se.reason}
	case errors.As(err, &ve):
		return &Problem{Type: ProblemInvalidBody, Title: "Request body invalid", Status: http.StatusBadRequest,
			Detail: "The request breaks its schema; violations lists every violation.", Violations: ve.Violations}
	}
	return nil
}

// checkNaturalKey refuses a natural key too long for the store's index: a
// 400 naming the natural-key pointers, before anything is claimed.
func checkNaturalKey(nk string) error {
	if len(nk) <= MaxNaturalKeyBytes {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidBody, &jsondecode.Error{Violations: []jsondecode.Violation{{
		Reason: fmt.Sprintf("the natural key is %d bytes as canonical JSON, at most %d allowed", len(nk), MaxNaturalKeyBytes),
	}}})
}

// acceptHeader names the response header that lists the media types a
// method's body may have: Accept-Patch (RFC 5789) for PATCH, Accept-Post
// (W3C LDP, registered with IANA) otherwise.
func acceptHeader(method string) string {
	if method == http.MethodPatch {
		return "Accept-Patch"
	}
	return "Accept-Post"
}
