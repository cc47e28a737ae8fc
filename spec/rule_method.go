package spec

import (
	"fmt"
	"strings"
)

// The rules on which operations carry a contract: never a safe method, and,
// when asked for, every mutating one.

var ruleIdempotencyOnSafeMethod = Rule{
	ID:       "IDEM015",
	Name:     "idempotency-on-safe-method",
	Severity: SeverityWarning,
	Summary:  "x-idempotency on a safe method (GET, HEAD, OPTIONS)",
	check: func(r *ruleRun) {
		if r.c == nil || !IsSafeMethod(r.op.Method) {
			return
		}
		r.report(r.c.Pos, "x-idempotency",
			fmt.Sprintf("x-idempotency on %s %s: a %s changes nothing, so a retry is already harmless and the key only costs a stored record",
				strings.ToUpper(r.op.Method), r.op.Path, strings.ToUpper(r.op.Method)),
			"remove x-idempotency, or move it to the operation that changes state")
	},
}

var ruleMutationWithoutIdempotency = Rule{
	ID:        "IDEM016",
	Name:      "mutation-without-idempotency",
	Severity:  SeverityError,
	Summary:   "a POST, PUT, PATCH or DELETE operation without x-idempotency (opt-in: --require-mutations)",
	OptIn:     true,
	enabledBy: func(o CheckOptions) bool { return o.RequireMutations },
	check: func(r *ruleRun) {
		if r.c != nil || !IsMutatingMethod(r.op.Method) {
			return
		}
		r.report(r.op.Pos, "",
			fmt.Sprintf("%s changes state but has no x-idempotency: a client retry after a timeout can apply it twice", r.opName()),
			"add an x-idempotency block, or check this spec without --require-mutations")
	},
}

// IsMutatingMethod reports whether an HTTP method changes state: POST,
// PUT, PATCH or DELETE, in any case.
func IsMutatingMethod(method string) bool {
	switch strings.ToUpper(method) {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

// IsSafeMethod reports whether an HTTP method is safe (RFC 9110): GET, HEAD
// or OPTIONS, in any case.
func IsSafeMethod(method string) bool {
	switch strings.ToUpper(method) {
	case "GET", "HEAD", "OPTIONS":
		return true
	}
	return false
}
