package idem_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// Must show 2: the response of a committed operation is lost (a fault
// after the commit, before the response is written); the retry replays
// identical bytes with Idempotent-Replayed: true.
func TestLostResponseReplays(t *testing.T) {
	d := newDB(t)
	var bodies [][]byte
	capture := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		resp, err := createOrder(ctx, tx, op, req)
		if resp != nil {
			bodies = append(bodies, bytes.Clone(resp.Body))
		}
		return resp, err
	}
	h := newHandlerWithFaults(t, d.pool, orderContract(), idem.Config{}, faults.Hooks{AfterCommit: faults.FailFirst(1)}, capture)
	body := `{"customer":"c-1","amount":7,"items":["x"]}`

	lost := post(h, "tenant-a", "lost-1", body)
	if lost.Status != 0 {
		t.Fatalf("first attempt: status %d, want the response dropped", lost.Status)
	}
	if len(bodies) != 1 {
		t.Fatalf("business ran %d times, want 1", len(bodies))
	}
	retry := post(h, "tenant-a", "lost-1", body)
	if retry.Status != http.StatusCreated {
		t.Fatalf("retry: status %d body %s", retry.Status, retry.Body)
	}
	if !bytes.Equal(retry.Body, bodies[0]) {
		t.Errorf("retry body %s, want the lost response %s", retry.Body, bodies[0])
	}
	if got := retry.Header.Get("Idempotent-Replayed"); got != "true" {
		t.Errorf("Idempotent-Replayed %q, want true", got)
	}
	if len(bodies) != 1 {
		t.Errorf("business ran %d times, want 1", len(bodies))
	}
	if got := retry.Header.Get("Location"); got == "" {
		t.Error("replay lost the Location header the contract keeps")
	}
	if got := retry.Header.Get("X-Not-Replayed"); got != "" {
		t.Errorf("replay carries X-Not-Replayed %q, a header the contract does not keep", got)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
}

// Must show 3: a changed significant field is a 422 that discloses nothing
// of the first request; a changed non-significant field, reordered object
// keys and a reordered unordered array replay.
func TestFingerprintDecidesReplayOr422(t *testing.T) {
	d := newDB(t)
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, createOrder)
	first := post(h, "tenant-a", "fp-1", `{"customer":"secret-customer","amount":987654,"items":["a","b","c"],"note":"first"}`)
	if first.Status != http.StatusCreated {
		t.Fatalf("first: status %d body %s", first.Status, first.Body)
	}
	for _, tc := range []struct {
		name, body string
		replay     bool
	}{
		{"same", `{"customer":"secret-customer","amount":987654,"items":["a","b","c"],"note":"first"}`, true},
		{"non-significant field changed", `{"customer":"secret-customer","amount":987654,"items":["a","b","c"],"note":"second"}`, true},
		{"non-significant field dropped", `{"customer":"secret-customer","amount":987654,"items":["a","b","c"]}`, true},
		{"object keys reordered", `{"items":["a","b","c"],"note":"first","amount":987654,"customer":"secret-customer"}`, true},
		{"unordered array reordered", `{"customer":"secret-customer","amount":987654,"items":["c","a","b"],"note":"first"}`, true},
		{"number spelled differently", `{"customer":"secret-customer","amount":9.87654e5,"items":["a","b","c"]}`, true},
		{"significant field changed", `{"customer":"secret-customer","amount":987655,"items":["a","b","c"],"note":"first"}`, false},
		{"unordered array element changed", `{"customer":"secret-customer","amount":987654,"items":["a","b","d"],"note":"first"}`, false},
		{"unordered array multiplicity changed", `{"customer":"secret-customer","amount":987654,"items":["a","b","c","c"],"note":"first"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := post(h, "tenant-a", "fp-1", tc.body)
			if tc.replay {
				if r.Status != first.Status || !bytes.Equal(r.Body, first.Body) || r.Header.Get("Idempotent-Replayed") != "true" {
					t.Fatalf("status %d replayed %q body %s, want a replay of %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body, first.Body)
				}
				return
			}
			if r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d body %s, want 422", r.Status, r.Body)
			}
			if got := problemType(t, r); got != idem.ProblemFingerprint {
				t.Errorf("problem type %q, want %q", got, idem.ProblemFingerprint)
			}
			for _, secret := range []string{"secret-customer", "987654", "order_id", "/orders/"} {
				if bytes.Contains(r.Body, []byte(secret)) {
					t.Errorf("422 body %s discloses %q of the first request", r.Body, secret)
				}
			}
			if r.Header.Get("Location") != "" || r.Header.Get("Idempotent-Replayed") != "" {
				t.Errorf("422 carries headers of the first response: %v", r.Header)
			}
		})
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
}

// Must show 4: the same content with a new key is a second operation; the
// same key in another scope is independent and never sees the first body.
func TestNewKeyAndOtherScopeAreNewOperations(t *testing.T) {
	d := newDB(t)
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, createOrder)
	body := `{"customer":"c-1","amount":10,"items":["a"]}`
	a1 := post(h, "tenant-a", "k-1", body)
	a2 := post(h, "tenant-a", "k-2", body)
	b1 := post(h, "tenant-b", "k-1", body)
	for name, r := range map[string]idemtest.Response{"tenant-a k-1": a1, "tenant-a k-2": a2, "tenant-b k-1": b1} {
		if r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("%s: status %d replayed %q, want a new 201", name, r.Status, r.Header.Get("Idempotent-Replayed"))
		}
	}
	if bytes.Equal(a1.Body, a2.Body) || bytes.Equal(a1.Body, b1.Body) {
		t.Errorf("responses share a body: a1 %s a2 %s b1 %s", a1.Body, a2.Body, b1.Body)
	}
	b1again := post(h, "tenant-b", "k-1", body)
	if !bytes.Equal(b1again.Body, b1.Body) || b1again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("tenant-b retry: body %s, want its own %s replayed", b1again.Body, b1.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 3 {
		t.Errorf("%d orders, want 3", n)
	}
	if n := d.count(t, "SELECT count(*) FROM orders WHERE tenant = 'tenant-b'"); n != 1 {
		t.Errorf("%d orders of tenant-b, want 1", n)
	}
}

// A response's typed headers (Response.Typed, which generated responses
// fill with their documented headers) are stored and replayed without the
// contract listing them; a header neither typed nor listed is sent with
// the first answer only.
func TestTypedHeadersReplay(t *testing.T) {
	d := newDB(t)
	c := orderContract()
	c.ReplayHeaders = nil
	typed := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		resp, err := createOrder(ctx, tx, op, req)
		if resp != nil {
			resp.Typed = []string{"Location"}
		}
		return resp, err
	}
	h := newHandler(t, d.pool, c, idem.Config{}, typed)
	body := `{"customer":"c-1","amount":7,"items":["x"]}`
	first := post(h, "tenant-a", "typed-1", body)
	if first.Status != http.StatusCreated || first.Header.Get("Location") == "" || first.Header.Get("X-Not-Replayed") == "" {
		t.Fatalf("first: status %d, header %v; want 201 with Location and X-Not-Replayed", first.Status, first.Header)
	}
	replay := post(h, "tenant-a", "typed-1", body)
	if replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("second: not a replay: status %d, header %v", replay.Status, replay.Header)
	}
	if got, want := replay.Header.Get("Location"), first.Header.Get("Location"); got != want {
		t.Errorf("replay: Location %q, want the typed header of the first answer %q", got, want)
	}
	if got := replay.Header.Get("X-Not-Replayed"); got != "" {
		t.Errorf("replay carries X-Not-Replayed %q, neither typed nor listed by the contract", got)
	}
}
