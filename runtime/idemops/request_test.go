package idemops_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// A halted payment shows support the request it keeps for the completer:
// credentials never stored, fields and headers named like secrets and the
// fields the spec marks redacted, and the idempotency key hidden wherever
// the request carries it unless keys are shown; once decided, no request.
func TestHaltedOperationShowsItsRequestRedacted(t *testing.T) {
	s := newPaymentService(t)
	const key = "pay-key-7f3a"
	req := httptest.NewRequest(http.MethodPost, "/payments?api_key=k-1&channel=web",
		strings.NewReader(`{"amount":100,"card_token":"tok_9","memo":"m","ref":"`+key+`","gift_code":"G-1"}`))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Authorization", "Bearer sk_live_1")
	req.Header.Set("X-Api-Key", "k-2")
	req.Header.Set("X-Trace", "t-1")
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusConflict {
		t.Fatalf("the payment whose charge was lost: %d %s, want 409", rec.Code, rec.Body)
	}
	id := s.halted(t, key)

	c := s.db.client(t, idemops.Config{SecretFields: []string{"gift_code"}})
	op, err := c.Operation(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := &idemops.Request{Method: http.MethodPost, Route: "/payments",
		Query:  url.Values{"api_key": {idemops.Redacted}, "channel": {"web"}},
		Header: http.Header{"Idempotency-Key": {"[idempotency key: not shown]"}, "X-Api-Key": {idemops.Redacted}, "X-Trace": {"t-1"}},
		Body:   `{"amount":100,"card_token":"[redacted]","gift_code":"[redacted]","memo":"m","ref":"[idempotency key: not shown]"}`}
	if diff := cmp.Diff(want, op.Request); diff != "" {
		t.Errorf("the halted payment's request (-want +got):\n%s", diff)
	}
	if found, err := c.Find(t.Context(), "merchant-1", key); err != nil || !cmp.Equal(found.Request, want) {
		t.Errorf("Find's request: %+v, %v", found.Request, err)
	}

	shown := s.db.client(t, idemops.Config{ShowKeys: true})
	op, err = shown.Operation(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := op.Request.Header.Get("Idempotency-Key"); got != key || !strings.Contains(op.Request.Body, `"ref":"`+key+`"`) {
		t.Errorf("with ShowKeys the key is shown: header %q, body %s", got, op.Request.Body)
	}

	if _, err := c.ResolveOperation(t.Context(), id, idemops.Resolution{To: idemops.OperationFailed,
		Problem: idemops.Problem{Status: http.StatusConflict, Title: "The payment was not charged"}},
		idemops.Action{Actor: "alice", Reason: "the bank has no charge"}); err != nil {
		t.Fatal(err)
	}
	if op, err := c.Operation(t.Context(), id); err != nil || op.Request != nil {
		t.Errorf("a decided operation keeps no request: %+v, %v", op.Request, err)
	}
}
