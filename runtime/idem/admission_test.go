package idem_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// readCounter is a request body that counts the reads made of it.
type readCounter struct {
	reads atomic.Int64
	r     *strings.Reader
}

func (b *readCounter) Read(p []byte) (int, error) {
	b.reads.Add(1)
	return b.r.Read(p)
}

func (b *readCounter) Close() error { return nil }

// A request without a key or without a caller is refused before a byte of
// its body is read, and the answer asks to close the connection, so that
// net/http does not read the unread body either: an unauthenticated
// client cannot hold a connection by sending a body slowly.
func TestRefusedBeforeTheBodyIsRead(t *testing.T) {
	d := newDB(t)
	var calls int
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, countCalls(&calls, createOrder))
	const body = `{"customer":"c-1","amount":1}`
	for _, tc := range []struct {
		name   string
		tenant string
		key    string
		status int
		typ    string
	}{
		{"no key", "t", "", http.StatusBadRequest, idem.ProblemKeyMissing},
		{"malformed key", "t", `"open`, http.StatusBadRequest, idem.ProblemKeyMalformed},
		{"no caller", "", "k-1", http.StatusForbidden, idem.ProblemScopeUnavailable},
		{"neither", "", "", http.StatusBadRequest, idem.ProblemKeyMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &readCounter{r: strings.NewReader(body)}
			req := httptest.NewRequest(http.MethodPost, "/orders", b)
			req.ContentLength = int64(len(body))
			if tc.key != "" {
				req.Header.Set("Idempotency-Key", tc.key)
			}
			if tc.tenant != "" {
				req.Header.Set("X-Tenant", tc.tenant)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			r := idemtest.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
			if r.Status != tc.status || problemType(t, r) != tc.typ {
				t.Fatalf("status %d body %s, want %d %s", r.Status, r.Body, tc.status, tc.typ)
			}
			if n := b.reads.Load(); n != 0 {
				t.Errorf("the body was read %d times before the refusal", n)
			}
			if got := r.Header.Get("Connection"); got != "close" {
				t.Errorf("Connection %q, want close (net/http would read the unread body)", got)
			}
		})
	}
	if calls != 0 {
		t.Errorf("business ran %d times, want 0", calls)
	}
}
