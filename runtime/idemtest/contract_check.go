package idemtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strconv"
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// replayedHeader marks a replayed response.
const replayedHeader = "Idempotent-Replayed"

// isReplay reports whether res is a replayed response.
func isReplay(res Response) bool { return res.Header.Get(replayedHeader) == "true" }

// describe renders a response for a failure message.
func describe(res Response) string {
	if res.Status == 0 {
		return "no response (lost)"
	}
	return fmt.Sprintf("status %d, %s %q, body %s", res.Status, replayedHeader, res.Header.Get(replayedHeader), res.Body)
}

// wantAccepted fails t unless res is an answer the business gave (2xx or
// 3xx), replayed or not as replay says.
func wantAccepted(t *testing.T, what string, res Response, replay bool) {
	t.Helper()
	if res.Status < 200 || res.Status > 399 {
		t.Fatalf("%s: got %s; want the business's answer to a valid request (2xx or 3xx)", what, describe(res))
	}
	if isReplay(res) != replay {
		if replay {
			t.Fatalf("%s: got %s; want a replay (%s: true)", what, describe(res), replayedHeader)
		}
		t.Fatalf("%s: got %s; want a new operation, not a replay", what, describe(res))
	}
}

// wantSameAnswer fails t unless got carries want's status, Content-Type
// and body byte for byte.
func wantSameAnswer(t *testing.T, what string, want, got Response) {
	t.Helper()
	if got.Status != want.Status || got.Header.Get("Content-Type") != want.Header.Get("Content-Type") || !bytes.Equal(got.Body, want.Body) {
		t.Fatalf("%s: got status %d, Content-Type %q, body %s; want the first answer byte for byte: status %d, Content-Type %q, body %s",
			what, got.Status, got.Header.Get("Content-Type"), got.Body, want.Status, want.Header.Get("Content-Type"), want.Body)
	}
}

// wantProblem fails t unless res is an application/problem+json answer of
// status and problem type typ.
func wantProblem(t *testing.T, what string, res Response, status int, typ string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("%s: got %s; want status %d with problem type %s", what, describe(res), status, typ)
	}
	if mt, _, err := mime.ParseMediaType(res.Header.Get("Content-Type")); err != nil || mt != "application/problem+json" {
		t.Fatalf("%s: Content-Type %q, want application/problem+json", what, res.Header.Get("Content-Type"))
	}
	var p httpapi.Problem
	if err := json.Unmarshal(res.Body, &p); err != nil {
		t.Fatalf("%s: problem body %s: %v", what, res.Body, err)
	}
	if p.Type != typ {
		t.Fatalf("%s: problem type %q, want %q (body %s)", what, p.Type, typ, res.Body)
	}
}

// wantRetryAfter fails t unless res advises a retry after a positive
// number of seconds.
func wantRetryAfter(t *testing.T, what string, res Response) {
	t.Helper()
	v := res.Header.Get("Retry-After")
	if n, err := strconv.Atoi(v); err != nil || n < 1 {
		t.Fatalf("%s: Retry-After %q, want a whole number of seconds, at least 1", what, v)
	}
}
