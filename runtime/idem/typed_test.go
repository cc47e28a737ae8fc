package idem_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// typedOrder is what a generated typed request looks like.
type typedOrder struct {
	Customer string   `json:"customer"`
	Amount   int64    `json:"amount"`
	Items    []string `json:"items"`
	Note     string   `json:"note"`
}

// fingerprintTypedOrder is a hand-written typed fingerprint with the shape
// the generator emits for orderContract: the include object, items
// unordered.
func fingerprintTypedOrder(o *typedOrder, params map[string]string) (fingerprint.Sum, error) {
	return fingerprint.SumWith(http.MethodPost, "/orders", params, func(w *fingerprint.Writer) {
		w.BeginObject()
		w.Key("/amount")
		w.BeginArray()
		w.Int(o.Amount)
		w.EndArray()
		w.Key("/customer")
		w.BeginArray()
		w.String(o.Customer)
		w.EndArray()
		w.Key("/items")
		w.BeginArray()
		if o.Items == nil {
			w.Null()
		} else {
			w.BeginUnorderedArray()
			for _, it := range o.Items {
				w.String(it)
			}
			w.EndUnorderedArray()
		}
		w.EndArray()
		w.EndObject()
	})
}

// typedHandler serves createOrder through NewTypedHandler: it inserts the
// order, enqueues a confirmation email, and rejects a negative amount with
// a 422 problem after the insert.
func typedHandler(tb testing.TB, d *db) http.Handler {
	tb.Helper()
	return typedHandlerWith(tb, d, nil)
}

// typedHandlerWith is typedHandler with a natural-key function.
func typedHandlerWith(tb testing.TB, d *db, naturalKey func(*typedOrder) (string, error)) http.Handler {
	tb.Helper()
	return typedHandlerOn(tb, d, orderContract(), naturalKey)
}

// typedHandlerOn is typedHandlerWith under contract c.
func typedHandlerOn(tb testing.TB, d *db, c idemimpl.Contract, naturalKey func(*typedOrder) (string, error)) http.Handler {
	tb.Helper()
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Protocol: testProtocol()})
	if err != nil {
		tb.Fatal(err)
	}
	h, err := idemimpl.NewTypedHandler(exec, idemimpl.Typed[typedOrder]{
		Contract: c,
		Decode: func(r *idemimpl.Request) (*typedOrder, error) {
			var o typedOrder
			if err := json.Unmarshal(r.Body, &o); err != nil {
				return nil, fmt.Errorf("%w: %v", idem.ErrInvalidBody, err)
			}
			return &o, nil
		},
		Fingerprint: fingerprintTypedOrder,
		NaturalKey:  naturalKey,
		Run: func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, _ *idemimpl.Request, o *typedOrder) (*idemimpl.Response, error) {
			var id int64
			if err := tx.QueryRow(ctx, "INSERT INTO orders (tenant, customer, amount) VALUES ($1, $2, $3) RETURNING id",
				op.Scope, o.Customer, o.Amount).Scan(&id); err != nil {
				return nil, err
			}
			if _, err := op.Enqueue(ctx, tx, idemimpl.Effect{Name: "confirmation_email", OnUnknown: "retry", Payload: []byte(`{"order":1}`)}); err != nil {
				return nil, err
			}
			if o.Amount < 0 {
				return nil, &idem.Rejection{Status: http.StatusUnprocessableEntity, Type: "https://example.com/negative", Title: "Negative amount"}
			}
			return jsonResponse(http.StatusCreated, map[string]any{"order_id": id}), nil
		},
	}, tenantScope)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func TestTypedHandlerRunsOnceAndEnqueuesOnce(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	h := typedHandler(t, d)
	first := post(h, "t1", "k1", `{"customer":"ann","amount":5,"items":["a","b"],"note":"x"}`)
	if first.Status != http.StatusCreated {
		t.Fatalf("first: status %d, body %s", first.Status, first.Body)
	}
	retry := post(h, "t1", "k1", `{"items":["b","a"],"note":"y","amount":5,"customer":"ann"}`)
	if retry.Status != http.StatusCreated || string(retry.Body) != string(first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: status %d, body %s, replayed %q; want the first response replayed", retry.Status, retry.Body, retry.Header.Get("Idempotent-Replayed"))
	}
	changed := post(h, "t1", "k1", `{"customer":"ann","amount":6,"items":["a","b"]}`)
	if changed.Status != http.StatusUnprocessableEntity {
		t.Fatalf("changed amount: status %d, want 422", changed.Status)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
	var effects int
	var key string
	err := d.pool.QueryRow(context.Background(),
		"SELECT count(*), min(effect_key) FROM idempotency_outbox WHERE scope = 't1' AND effect = 'confirmation_email' AND state = 'pending'").Scan(&effects, &key)
	if err != nil {
		t.Fatal(err)
	}
	if effects != 1 {
		t.Fatalf("%d outbox rows, want exactly one", effects)
	}
	var opID string
	if err := d.pool.QueryRow(context.Background(), "SELECT operation_id::text FROM idempotency_record WHERE scope = 't1'").Scan(&opID); err != nil {
		t.Fatal(err)
	}
	if want := opID + "/confirmation_email/1"; key != want {
		t.Errorf("effect key %q, want %q (operation, effect, sequence)", key, want)
	}
}

func TestTypedRejectionIsStoredWithoutEffects(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	h := typedHandler(t, d)
	first := post(h, "t1", "k1", `{"customer":"ann","amount":-1,"items":[]}`)
	if first.Status != http.StatusUnprocessableEntity || problemType(t, first) != "https://example.com/negative" {
		t.Fatalf("first: status %d, body %s; want the 422 rejection", first.Status, first.Body)
	}
	retry := post(h, "t1", "k1", `{"customer":"ann","amount":-1,"items":[]}`)
	if retry.Status != http.StatusUnprocessableEntity || string(retry.Body) != string(first.Body) || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry: status %d, body %s; want the stored rejection replayed", retry.Status, retry.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 0 {
		t.Errorf("%d orders after a rejection, want 0 (rolled back to the savepoint)", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_outbox"); n != 0 {
		t.Errorf("%d outbox rows after a rejection, want 0", n)
	}
}

func TestTypedDecodeErrorIs400(t *testing.T) {
	t.Parallel()
	d := newDB(t)
	h := typedHandler(t, d)
	r := post(h, "t1", "k1", `{"customer":1}`)
	if r.Status != http.StatusBadRequest || problemType(t, r) != idem.ProblemInvalidBody {
		t.Fatalf("status %d, body %s; want 400 request-body-invalid", r.Status, r.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
		t.Errorf("%d records after a body that does not decode, want 0", n)
	}
}
