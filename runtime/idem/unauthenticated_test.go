package idem_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// A ScopeFunc that returns an *idem.Unauthenticated, possibly wrapped,
// gets a 401 authentication-required carrying its challenge and its
// detail, so that the client learns which credential is missing; any
// other error, and an Unauthenticated without a challenge (a 401 must
// carry one), stays the 403 scope-unavailable that sends nothing of the
// error. Nothing runs or is kept either way. A status route answers the
// same.
func TestScopeFuncUnauthenticated(t *testing.T) {
	d := newDB(t)
	missing := &idem.Unauthenticated{Challenge: `Bearer realm="orders"`, Detail: "Send Authorization: Bearer <tenant>."}
	for _, tc := range []struct {
		name      string
		err       error
		status    int
		typ       string
		challenge string
		detail    string
	}{
		{"unauthenticated", missing, 401, idem.ProblemUnauthenticated, missing.Challenge, missing.Detail},
		{"wrapped", fmt.Errorf("auth middleware: %w", missing), 401, idem.ProblemUnauthenticated, missing.Challenge, missing.Detail},
		{"without a challenge", &idem.Unauthenticated{Detail: "Send a token."}, 403, idem.ProblemScopeUnavailable, "", ""},
		{"any other error", errors.New("token tok_secret expired"), 403, idem.ProblemScopeUnavailable, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls int
			exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Protocol: testProtocol()})
			if err != nil {
				t.Fatal(err)
			}
			scope := func(*http.Request) (string, error) { return "", tc.err }
			h, err := idemimpl.NewHandler(exec, orderContract(), scope, countCalls(&calls, createOrder))
			if err != nil {
				t.Fatal(err)
			}
			status, err := idemimpl.NewStatusHandler(exec, idemimpl.StatusContract{Operation: "createOrder", Method: http.MethodGet,
				Route: "/orders/attempts/{key}", Parameter: "key"}, scope)
			if err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			mux.Handle("POST /orders", h)
			mux.Handle("GET /orders/attempts/{key}", status)
			for _, req := range []*http.Request{
				idemtest.NewRequest(http.MethodPost, "/orders", "k-1", []byte(`{"customer":"c-1","amount":1}`)),
				idemtest.NewRequest(http.MethodGet, "/orders/attempts/k-1", "", nil),
			} {
				r := idemtest.Serve(mux, req)
				if r.Status != tc.status || problemType(t, r) != tc.typ {
					t.Fatalf("%s %s: status %d body %s, want %d %s", req.Method, req.URL.Path, r.Status, r.Body, tc.status, tc.typ)
				}
				if got := r.Header.Get("WWW-Authenticate"); got != tc.challenge {
					t.Errorf("%s %s: WWW-Authenticate %q, want %q", req.Method, req.URL.Path, got, tc.challenge)
				}
				var p struct{ Detail string }
				if err := json.Unmarshal(r.Body, &p); err != nil {
					t.Fatal(err)
				}
				if p.Detail != tc.detail {
					t.Errorf("%s %s: detail %q, want %q", req.Method, req.URL.Path, p.Detail, tc.detail)
				}
				if strings.Contains(string(r.Body), "tok_secret") {
					t.Errorf("%s %s: the answer discloses the ScopeFunc's error: %s", req.Method, req.URL.Path, r.Body)
				}
			}
			if calls != 0 {
				t.Errorf("business ran %d times, want 0", calls)
			}
		})
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
		t.Errorf("%d records, want 0", n)
	}
}
