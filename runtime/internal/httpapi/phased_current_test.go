package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// A phased operation under replay: current: its retry answers the payment
// as it is now (refunded after the first answer), read by the Current
// hook from the stored answer in the stored scope, without calling the
// bank again; a payment that is gone answers 410 resource-gone.
func TestPhasedReplayCurrent(t *testing.T) {
	p := newPayments(t, httpapi.OnUnknownRetry, faults.Hooks{})
	op := paymentOperation(p.bank, httpapi.OnUnknownRetry)
	op.Contract.ReplayCurrent = true
	op.Current = func(ctx context.Context, tx pgx.Tx, stored *httpapi.StoredAnswer, _ *httpapi.Request, _ *payment) (*httpapi.Response, error) {
		var first struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(stored.Body, &first); err != nil {
			return nil, err
		}
		var status string
		err := tx.QueryRow(ctx, `SELECT status FROM payments WHERE id = $1 AND tenant = $2`, first.ID, stored.Scope).Scan(&status)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, idem.ErrResourceGone
		}
		if err != nil {
			return nil, err
		}
		body := fmt.Sprintf(`{"id":%d,"status":%q}`, first.ID, status)
		return &httpapi.Response{Status: stored.Status, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}, nil
	}
	tenant := func(*http.Request) (string, error) { return "merchant-1", nil }
	h, err := httpapi.NewPhasedHandler(p.exec, op, tenant, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.h = h
	body := `{"amount":100,"card_token":"tok_1"}`
	first := p.pay("k1", body)
	if first.Code != http.StatusCreated || !strings.Contains(first.Body.String(), `"status":"approved"`) {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	if _, err := p.pool.Exec(t.Context(), `UPDATE payments SET status = 'refunded'`); err != nil {
		t.Fatal(err)
	}
	again := p.pay("k1", body)
	if again.Code != http.StatusCreated || !strings.Contains(again.Body.String(), `"status":"refunded"`) || again.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry after the refund: %d %s %v, want the payment as it is now, replayed", again.Code, again.Body, again.Header())
	}
	if keys, calls := p.bank.acted(); keys != 1 || calls != 1 {
		t.Errorf("the bank saw %d keys in %d calls, want 1 in 1", keys, calls)
	}
	if _, err := p.pool.Exec(t.Context(), `DELETE FROM payments`); err != nil {
		t.Fatal(err)
	}
	if gone := p.pay("k1", body); gone.Code != http.StatusGone || !strings.Contains(gone.Body.String(), httpapi.ProblemResourceGone) {
		t.Errorf("retry of a deleted payment: %d %s, want 410 resource-gone", gone.Code, gone.Body)
	}
	if n := p.count(t, `SELECT count(*) FROM payments`); n != 0 {
		t.Errorf("%d payments after the replays, want none: a replay never runs again", n)
	}
}
