package idem_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// rejectAfterInsert inserts the order, then refuses it with a wrapped
// *idem.Rejection: the insert must roll back on every path.
func rejectAfterInsert(calls *int) idemimpl.BusinessFunc {
	return func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		*calls++
		if _, err := createOrder(ctx, tx, op, req); err != nil {
			return nil, err
		}
		rej := &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: "https://example.com/no-credit", Title: "No credit", Detail: "the customer has no credit left"}
		return nil, fmt.Errorf("checking credit: %w", rej)
	}
}

// The raw-body path (NewHandler) answers a business refusal as the typed
// path does: its problem, stored and replayed under store-failures, the
// business changes rolled back. It used to be a 500.
func TestUntypedRejectionIsStoredLikeTyped(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	var calls int
	h := newHandler(t, d.pool, orderContract(), idem.Config{}, rejectAfterInsert(&calls))
	body := `{"customer":"ann","amount":5}`
	first := post(h, "t1", "k1", body)
	if first.Status != http.StatusUnprocessableEntity || problemType(t, first) != "https://example.com/no-credit" {
		t.Fatalf("first: status %d, body %s; want the 422 rejection", first.Status, first.Body)
	}
	retry := post(h, "t1", "k1", body)
	if retry.Status != http.StatusUnprocessableEntity || string(retry.Body) != string(first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: status %d, body %s; want the stored rejection replayed", retry.Status, retry.Body)
	}
	if calls != 1 {
		t.Errorf("business ran %d times, want 1", calls)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 0 {
		t.Errorf("%d orders after a rejection, want 0", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE state = 'failed' AND response_status = 422"); n != 1 {
		t.Errorf("%d stored 422 records, want 1", n)
	}
}

// Under StoreNoFailures a refusal is answered once and frees the key: the
// retry runs the business function again.
func TestRejectionWithoutStoreFailuresFreesKey(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	c := orderContract()
	c.StoreNoFailures = true
	var calls int
	h := newHandler(t, d.pool, c, idem.Config{}, rejectAfterInsert(&calls))
	for i := range 2 {
		r := post(h, "t1", "k1", `{"customer":"ann","amount":5}`)
		if r.Status != http.StatusUnprocessableEntity || r.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("attempt %d: status %d replayed %q, want a fresh 422", i, r.Status, r.Header.Get("Idempotent-Replayed"))
		}
	}
	if calls != 2 {
		t.Errorf("business ran %d times, want 2 (nothing stored)", calls)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
		t.Errorf("%d records, want the key freed", n)
	}
}

// The executor claims the natural key on the unprotected path too: two
// requests without an idempotency key (the contract makes it optional) for
// one entity create it once.
func TestNaturalKeyClaimedWithoutIdempotencyKey(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	c := orderContract()
	c.Key.Optional = true
	h := typedHandlerOn(t, d, c, byCustomer)
	body := `{"customer":"bea","amount":5,"items":["a"]}`
	if r := post(h, "t1", "", body); r.Status != http.StatusCreated {
		t.Fatalf("first: status %d, body %s; want 201", r.Status, r.Body)
	}
	second := post(h, "t1", "", body)
	if second.Status != http.StatusConflict || problemType(t, second) != idem.ProblemNaturalKeyExists {
		t.Fatalf("same entity without a key: status %d, body %s; want 409 natural-key-exists", second.Status, second.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders WHERE customer = 'bea'"); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
		t.Errorf("%d records, want none (unprotected requests record nothing)", n)
	}
}
