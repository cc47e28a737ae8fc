package idem_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemops"
)

// currentOrderHandler is createOrder under replay: current: its Current
// hook reads the order the stored Location names, in the stored scope,
// and answers it as it is now (200, with the Location); a deleted order
// is idem.ErrResourceGone. seen keeps the last stored answer the hook got.
func currentOrderHandler(t *testing.T, d *db, seen **idem.StoredAnswer) http.Handler {
	t.Helper()
	c := orderContract()
	c.ReplayCurrent = true
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Protocol: testProtocol()})
	if err != nil {
		t.Fatal(err)
	}
	spec := c.Fingerprint
	h, err := idemimpl.NewTypedHandler(exec, idemimpl.Typed[[]byte]{
		Contract: c,
		Decode:   func(req *idemimpl.Request) (*[]byte, error) { return &req.Body, nil },
		Fingerprint: func(body *[]byte, params map[string]string) (fingerprint.Sum, error) {
			return spec.Sum(fingerprint.Request{Method: c.Method, Route: c.Route, PathParams: params, Body: *body})
		},
		Run: func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request, _ *[]byte) (*idemimpl.Response, error) {
			return createOrder(ctx, tx, op, req)
		},
		Current: func(ctx context.Context, tx pgx.Tx, stored *idem.StoredAnswer, _ *idemimpl.Request, _ *[]byte) (*idemimpl.Response, error) {
			*seen = stored
			id, ok := strings.CutPrefix(stored.Location, "/orders/")
			if !ok {
				return nil, errors.New("no order link in the stored answer")
			}
			var customer string
			var amount int64
			err := tx.QueryRow(ctx, "SELECT customer, amount FROM orders WHERE id = $1 AND tenant = $2", id, stored.Scope).Scan(&customer, &amount)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil, idem.ErrResourceGone
			}
			if err != nil {
				return nil, err
			}
			resp := jsonResponse(http.StatusOK, map[string]any{"order_id": id, "customer": customer, "amount": amount})
			resp.Header.Set("Location", stored.Location)
			return resp, nil
		},
	}, tenantScope)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Under replay: current a retry answers the order as it is now, with
// Idempotent-Replayed: true, while the record keeps the first answer for
// support (idemops, as idemgen ops show reads it); the fingerprint is
// checked first, the scope is respected, and a deleted order answers 410
// resource-gone with the operation id.
func TestReplayCurrentOverHTTP(t *testing.T) {
	d := newDB(t)
	var seen *idem.StoredAnswer
	h := currentOrderHandler(t, d, &seen)
	body := `{"customer":"c-1","amount":7,"items":["x"]}`
	first := post(h, "tenant-a", "current-1", body)
	if first.Status != http.StatusCreated || first.Header.Get("Location") == "" {
		t.Fatalf("first: status %d, header %v, body %s", first.Status, first.Header, first.Body)
	}
	if _, err := d.pool.Exec(t.Context(), "UPDATE orders SET amount = 8"); err != nil {
		t.Fatal(err)
	}
	replay := post(h, "tenant-a", "current-1", body)
	if replay.Status != http.StatusOK || replay.Header.Get("Idempotent-Replayed") != "true" || !strings.Contains(string(replay.Body), `"amount":8`) {
		t.Fatalf("replay after the change: status %d, header %v, body %s; want 200, replayed, the amount as it is now", replay.Status, replay.Header, replay.Body)
	}
	if replay.Header.Get("Location") != first.Header.Get("Location") {
		t.Errorf("replay Location %q, want %q", replay.Header.Get("Location"), first.Header.Get("Location"))
	}
	if seen == nil || seen.Scope != "tenant-a" || seen.Key != "current-1" || seen.Status != http.StatusCreated ||
		string(seen.Body) != string(first.Body) || seen.Location != first.Header.Get("Location") || seen.OperationID == "" {
		t.Fatalf("the hook got %+v; want the first answer, its scope, key and operation id", seen)
	}

	ops, err := idemops.New(d.pool, idemops.Config{})
	if err != nil {
		t.Fatal(err)
	}
	op, err := ops.Find(t.Context(), "tenant-a", "current-1")
	if err != nil {
		t.Fatal(err)
	}
	if op.ID != seen.OperationID || op.Response == nil || op.Response.Status != http.StatusCreated || string(op.Response.Body) != string(first.Body) {
		t.Errorf("support sees %+v (response %+v); want the first answer, unchanged by the replay", op, op.Response)
	}

	if res := post(h, "tenant-a", "current-1", `{"customer":"c-1","amount":9,"items":["x"]}`); res.Status != http.StatusUnprocessableEntity || problemType(t, res) != idem.ProblemFingerprint {
		t.Errorf("a different request under the key: status %d, body %s; want 422 idempotency-key-reused", res.Status, res.Body)
	}
	if res := post(h, "tenant-b", "current-1", body); res.Status != http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the key in another scope: status %d, header %v; want a new operation", res.Status, res.Header)
	}

	if _, err := d.pool.Exec(t.Context(), "DELETE FROM orders WHERE tenant = 'tenant-a'"); err != nil {
		t.Fatal(err)
	}
	gone := post(h, "tenant-a", "current-1", body)
	if gone.Status != http.StatusGone || problemType(t, gone) != idem.ProblemResourceGone {
		t.Fatalf("replay of a deleted order: status %d, body %s; want 410 resource-gone", gone.Status, gone.Body)
	}
	var p struct {
		OperationID string `json:"operation_id"`
	}
	if err := json.Unmarshal(gone.Body, &p); err != nil || p.OperationID != seen.OperationID {
		t.Errorf("410 body %s: want operation_id %s", gone.Body, seen.OperationID)
	}
	if n := d.count(t, "SELECT count(*) FROM orders WHERE tenant = 'tenant-a'"); n != 0 {
		t.Errorf("%d orders of tenant-a after the replays of a deleted one, want 0: a replay never runs again", n)
	}
}

// A contract and its hook must agree: replay: current without a Current
// hook, or a hook under replay: stored, is refused when the handler is
// built.
func TestReplayCurrentNeedsItsHook(t *testing.T) {
	d := newDB(t)
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool})
	if err != nil {
		t.Fatal(err)
	}
	c := orderContract()
	c.ReplayCurrent = true
	fp := func(*[]byte, map[string]string) (fingerprint.Sum, error) { return fingerprint.Sum{}, nil }
	run := func(context.Context, pgx.Tx, *idemimpl.Operation, *idemimpl.Request, *[]byte) (*idemimpl.Response, error) {
		return nil, nil
	}
	if _, err := idemimpl.NewTypedHandler(exec, idemimpl.Typed[[]byte]{Contract: c, Fingerprint: fp, Run: run}, tenantScope); err == nil || !strings.Contains(err.Error(), "Current") {
		t.Errorf("replay current without a hook: %v, want a refusal naming Current", err)
	}
	c.ReplayCurrent = false
	current := func(context.Context, pgx.Tx, *idem.StoredAnswer, *idemimpl.Request, *[]byte) (*idemimpl.Response, error) {
		return nil, nil
	}
	if _, err := idemimpl.NewTypedHandler(exec, idemimpl.Typed[[]byte]{Contract: c, Fingerprint: fp, Run: run, Current: current}, tenantScope); err == nil {
		t.Error("a Current hook under replay stored: accepted, want a refusal")
	}
}
