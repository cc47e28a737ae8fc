package idem_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// The 400/403/413 rows of DESIGN.md section 3: nothing runs, the answer is
// problem+json with its documented type.
func TestRequestErrors(t *testing.T) {
	d := newDB(t)
	c := orderContract()
	c.Fingerprint.MaxBodySize = 64
	var calls int
	h := newHandler(t, d.pool, c, idem.Config{}, countCalls(&calls, createOrder))
	body := `{"customer":"c-1","amount":1}`
	for _, tc := range []struct {
		name   string
		tenant string
		keys   []string
		body   string
		status int
		typ    string
	}{
		{"missing key", "t", nil, body, 400, idem.ProblemKeyMissing},
		{"empty key", "t", []string{""}, body, 400, idem.ProblemKeyMalformed},
		{"empty string key", "t", []string{`""`}, body, 400, idem.ProblemKeyMalformed},
		{"too long", "t", []string{strings.Repeat("k", 256)}, body, 400, idem.ProblemKeyMalformed},
		{"malformed", "t", []string{`"open`}, body, 400, idem.ProblemKeyMalformed},
		{"two key fields", "t", []string{"a", "b"}, body, 400, idem.ProblemKeyMalformed},
		{"body too large", "t", []string{"k"}, `{"customer":"` + strings.Repeat("x", 64) + `"}`, 413, idem.ProblemBodyTooLarge},
		{"body not JSON", "t", []string{"k"}, `{"customer":`, 400, idem.ProblemInvalidBody},
		{"no scope", "", []string{"k"}, body, 403, idem.ProblemScopeUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := idemtest.NewRequest(http.MethodPost, "/orders", "", []byte(tc.body))
			for _, k := range tc.keys {
				req.Header.Add("Idempotency-Key", k)
			}
			if tc.tenant != "" {
				req.Header.Set("X-Tenant", tc.tenant)
			}
			r := idemtest.Serve(h, req)
			if r.Status != tc.status {
				t.Fatalf("status %d body %s, want %d", r.Status, r.Body, tc.status)
			}
			if got := problemType(t, r); got != tc.typ {
				t.Errorf("problem type %q, want %q", got, tc.typ)
			}
		})
	}
	if calls != 0 {
		t.Errorf("business ran %d times, want 0", calls)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
		t.Errorf("%d records, want 0", n)
	}
}

// Both key forms name the same key: the Structured Field string and the
// bare token.
func TestKeyFormsAreTheSameKey(t *testing.T) {
	d := newDB(t)
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, createOrder)
	body := `{"customer":"c-1","amount":1}`
	first := post(h, "t", `"8e03978e-40d5"`, body)
	second := post(h, "t", `8e03978e-40d5`, body)
	if first.Status != http.StatusCreated || second.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, second.Body) {
		t.Fatalf("sf-string then bare token: %d %s / %d %q %s, want a replay", first.Status, first.Body, second.Status, second.Header.Get("Idempotent-Replayed"), second.Body)
	}
}

// A key from a body member (in: body), and a contract whose key is
// optional: without a key each request is a new, unrecorded operation.
func TestBodyKeyAndOptionalKey(t *testing.T) {
	d := newDB(t)
	c := orderContract()
	c.Key = idemimpl.KeySpec{BodyPointer: "/request_id", Optional: true}
	h := newHandler(t, d.pool, c, idem.Config{}, createOrder)
	keyed := `{"request_id":"r-1","customer":"c-1","amount":1}`
	first, second := post(h, "t", "", keyed), post(h, "t", "", keyed)
	if first.Status != http.StatusCreated || second.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.Body, second.Body) {
		t.Fatalf("body key: %d %s / %d %s, want a replay", first.Status, first.Body, second.Status, second.Body)
	}
	if r := post(h, "t", "", `{"request_id":7,"customer":"c-1","amount":1}`); r.Status != http.StatusBadRequest || problemType(t, r) != idem.ProblemKeyMalformed {
		t.Errorf("non-string body key: status %d body %s, want 400 key malformed", r.Status, r.Body)
	}
	unkeyed := `{"customer":"c-2","amount":1}`
	a, b := post(h, "t", "", unkeyed), post(h, "t", "", unkeyed)
	if a.Status != http.StatusCreated || b.Status != http.StatusCreated || bytes.Equal(a.Body, b.Body) || b.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("optional key absent: %d %s / %d %s, want two new orders", a.Status, a.Body, b.Status, b.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 3 {
		t.Errorf("%d orders, want 3", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 1 {
		t.Errorf("%d records, want 1 (unkeyed requests leave none)", n)
	}
}

// Path parameters are part of the fingerprint: the same key on another
// resource is a 422, read through the standard mux's PathValue.
func TestPathParamsInFingerprint(t *testing.T) {
	d := newDB(t)
	c := orderContract()
	c.Route = "/shops/{shop}/orders"
	c.PathParams = []string{"shop"}
	mux := http.NewServeMux()
	mux.Handle("POST /shops/{shop}/orders", newHandler(t, d.pool, c, idem.Config{}, createOrder))
	send := func(shop string) idemtest.Response {
		req := idemtest.NewRequest(http.MethodPost, "/shops/"+shop+"/orders", "pk-1", []byte(`{"customer":"c","amount":1}`))
		req.Header.Set("X-Tenant", "t")
		return idemtest.Serve(mux, req)
	}
	if r := send("s1"); r.Status != http.StatusCreated {
		t.Fatalf("first: %d %s", r.Status, r.Body)
	}
	if r := send("s1"); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("same shop: %d %s, want a replay", r.Status, r.Body)
	}
	if r := send("s2"); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("other shop: %d %s, want 422", r.Status, r.Body)
	}
}
