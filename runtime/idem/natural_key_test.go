package idem_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// byCustomer makes the customer the order's natural key: one order per
// customer and tenant.
func byCustomer(o *typedOrder) (string, error) { return `["` + o.Customer + `"]`, nil }

func TestNaturalKeyRefusesASecondEntityUnderANewKey(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	h := typedHandlerWith(t, d, byCustomer)
	body := `{"customer":"ann","amount":5,"items":["a"]}`
	if r := post(h, "t1", "k1", body); r.Status != http.StatusCreated {
		t.Fatalf("first: status %d, body %s", r.Status, r.Body)
	}
	second := post(h, "t1", "k2", body)
	if second.Status != http.StatusConflict || problemType(t, second) != idem.ProblemNaturalKeyExists {
		t.Fatalf("same entity under a new key: status %d, body %s; want 409 natural-key-exists", second.Status, second.Body)
	}
	retry := post(h, "t1", "k2", body)
	if retry.Status != http.StatusConflict || string(retry.Body) != string(second.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry of the refused request: status %d, body %s; want the stored 409 replayed", retry.Status, retry.Body)
	}
	if r := post(h, "t2", "k2", body); r.Status != http.StatusCreated {
		t.Fatalf("same entity in another scope: status %d, body %s; want 201", r.Status, r.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders WHERE tenant = 't1'"); n != 1 {
		t.Errorf("%d orders for t1, want 1", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_outbox WHERE scope = 't1'"); n != 1 {
		t.Errorf("%d outbox rows for t1, want 1 (the refused request's effect rolled back)", n)
	}
}

// TestNaturalKeyConcurrentClaims sends one entity under 16 different keys
// at once, over 4 pools, several rounds: each round creates it once.
func TestNaturalKeyConcurrentClaims(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	handlers := make([]http.Handler, 4)
	for i := range handlers {
		handlers[i] = typedHandlerWith(t, &db{connString: d.connString, pool: d.newPool(t, 0)}, byCustomer)
	}
	for round := range 5 {
		customer := fmt.Sprintf("c%d", round)
		body := fmt.Sprintf(`{"customer":%q,"amount":1,"items":[]}`, customer)
		res := idemtest.Concurrently(16, func(i int) idemtest.Response {
			return post(handlers[i%len(handlers)], "t1", fmt.Sprintf("r%d-k%d", round, i), body)
		})
		created := 0
		for _, r := range res {
			switch {
			case r.Status == http.StatusCreated:
				created++
			case r.Status == http.StatusConflict && problemType(t, r) == idem.ProblemNaturalKeyExists:
			default:
				t.Fatalf("round %d: status %d, body %s; want 201 or 409 natural-key-exists", round, r.Status, r.Body)
			}
		}
		if created != 1 {
			t.Fatalf("round %d: %d requests created the entity, want exactly 1", round, created)
		}
		if n := d.count(t, "SELECT count(*) FROM orders WHERE customer = $1", customer); n != 1 {
			t.Fatalf("round %d: %d orders, want 1", round, n)
		}
	}
}
