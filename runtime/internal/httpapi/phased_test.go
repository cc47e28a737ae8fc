package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// payment is the typed request of the phased operation these tests
// mount the way generated code does: record the payment, charge the bank
// (external, with the step's key), record the outcome and answer.
type payment struct {
	Amount int    `json:"amount"`
	Card   string `json:"card_token"`
}

// fakeBank acts once per key and can lose its answer (after acting).
type fakeBank struct {
	mu       sync.Mutex
	calls    map[string]int
	verifies int
	loseNext atomic.Int32 // lose the answers of this many next calls
}

func (b *fakeBank) charge(key string, amount int) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls[key]++
	if b.loseNext.Load() > 0 {
		b.loseNext.Add(-1)
		return "", errors.New("bank: connection reset after the request was sent")
	}
	if amount > 1000 {
		return "declined", nil
	}
	return "approved", nil
}

func (b *fakeBank) verify(key string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.verifies++
	return "approved", b.calls[key] > 0
}

func (b *fakeBank) acted() (keys, calls int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range b.calls {
		keys, calls = keys+1, calls+n
	}
	return keys, calls
}

// paymentOperation is the phased operation under policy.
func paymentOperation(b *fakeBank, policy httpapi.OnUnknown) httpapi.Phased[payment] {
	return httpapi.Phased[payment]{
		Contract: httpapi.Contract{Operation: "createPayment", Method: http.MethodPost, Route: "/payments",
			Key: httpapi.KeySpec{Header: "Idempotency-Key"}, Lease: 30 * time.Second},
		Decode: func(req *httpapi.Request) (*payment, error) {
			var p payment
			if err := json.Unmarshal(req.Body, &p); err != nil {
				return nil, fmt.Errorf("%w: %v", httpapi.ErrInvalidBody, err)
			}
			return &p, nil
		},
		Fingerprint: func(p *payment, params map[string]string) (fingerprint.Sum, error) {
			return fingerprint.SumWith(http.MethodPost, "/payments", params, func(w *fingerprint.Writer) {
				w.BeginObject()
				w.Key("amount")
				w.Int(int64(p.Amount))
				w.Key("card_token")
				w.String(p.Card)
				w.EndObject()
			})
		},
		Steps: []httpapi.Step[payment]{
			{Name: "record_payment", Local: func(ctx context.Context, tx pgx.Tx, op *core.Operation, _ *httpapi.Request, p *payment, _ []byte) ([]byte, *httpapi.Response, error) {
				var id int64
				err := tx.QueryRow(ctx, `INSERT INTO payments (tenant, amount) VALUES ($1, $2) RETURNING id`, op.Scope, p.Amount).Scan(&id)
				return fmt.Appendf(nil, "%d", id), nil, err
			}},
			{Name: "charge_bank", OnUnknown: policy, Timeout: time.Second,
				Call: func(ctx context.Context, op *core.Operation, key string, _ *httpapi.Request, p *payment, in []byte) ([]byte, error) {
					status, err := b.charge(key, p.Amount)
					return fmt.Appendf(in, ":%s", status), err
				},
				Verify: func(ctx context.Context, op *core.Operation, key string, _ *httpapi.Request, _ *payment, in []byte) ([]byte, bool, error) {
					status, done := b.verify(key)
					return fmt.Appendf(in, ":%s", status), done, nil
				}},
			{Name: "record_outcome", Local: func(ctx context.Context, tx pgx.Tx, _ *core.Operation, _ *httpapi.Request, _ *payment, in []byte) ([]byte, *httpapi.Response, error) {
				id, status, _ := strings.Cut(string(in), ":")
				if _, err := tx.Exec(ctx, `UPDATE payments SET status = $2 WHERE id = $1`, id, status); err != nil {
					return nil, nil, err
				}
				body := fmt.Sprintf(`{"id":%s,"status":%q}`, id, status)
				return nil, &httpapi.Response{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}, nil
			}},
		},
	}
}

// payments is a phased payment service on a fresh database.
type payments struct {
	pool *pgxpool.Pool
	exec *idem.Executor
	bank *fakeBank
	h    http.Handler
}

func newPayments(t *testing.T, policy httpapi.OnUnknown, hooks faults.Hooks) *payments {
	t.Helper()
	pool := pgtest.Pool(t)
	if err := idem.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), `CREATE TABLE payments (id bigserial PRIMARY KEY, tenant text, amount int, status text)`); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	core.InstallFaults(exec, hooks)
	p := &payments{pool: pool, exec: exec, bank: &fakeBank{calls: map[string]int{}}}
	tenant := func(*http.Request) (string, error) { return "merchant-1", nil }
	if p.h, err = httpapi.NewPhasedHandler(exec, paymentOperation(p.bank, policy), tenant, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *payments) pay(key, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/payments", strings.NewReader(body))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Authorization", "Bearer secret-of-merchant-1")
	rec := httptest.NewRecorder()
	p.h.ServeHTTP(rec, req)
	return rec
}

func (p *payments) count(t *testing.T, sql string) int {
	t.Helper()
	var n int
	if err := p.pool.QueryRow(t.Context(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A phased payment runs its steps once; its retry replays the answer.
func TestPhasedPaymentRunsOnceAndReplays(t *testing.T) {
	p := newPayments(t, httpapi.OnUnknownRetry, faults.Hooks{})
	first := p.pay("k1", `{"amount":100,"card_token":"tok_1"}`)
	if first.Code != http.StatusCreated || !strings.Contains(first.Body.String(), `"status":"approved"`) {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	again := p.pay("k1", `{"amount":100,"card_token":"tok_1"}`)
	if again.Code != http.StatusCreated || again.Body.String() != first.Body.String() || again.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry: %d %s %v, want the first answer replayed", again.Code, again.Body, again.Header())
	}
	if keys, calls := p.bank.acted(); keys != 1 || calls != 1 {
		t.Errorf("the bank saw %d keys in %d calls, want 1 in 1", keys, calls)
	}
	if n := p.count(t, `SELECT count(*) FROM payments`); n != 1 {
		t.Errorf("%d payments, want 1", n)
	}
	if n := p.count(t, `SELECT count(*) FROM idempotency_progress`); n != 0 {
		t.Errorf("%d operations left in progress, want 0", n)
	}
	changed := p.pay("k1", `{"amount":999,"card_token":"tok_1"}`)
	if changed.Code != http.StatusUnprocessableEntity {
		t.Errorf("the key with another amount: %d, want 422", changed.Code)
	}
}

// The bank's answer is lost, at the first attempt, under each policy:
// retry answers 503 and the client's retry calls again with the same key;
// verify asks the bank and goes on; halt answers 409
// operation-requires-recovery now and to every retry.
func TestPhasedUnknownOutcomePolicies(t *testing.T) {
	for _, tc := range []struct {
		policy           httpapi.OnUnknown
		firstCode        int
		retryCode        int
		calls, verifies  int
		progressAfterAll int
	}{
		{httpapi.OnUnknownRetry, http.StatusServiceUnavailable, http.StatusCreated, 2, 0, 0},
		{httpapi.OnUnknownVerify, http.StatusCreated, http.StatusCreated, 1, 1, 0},
		{httpapi.OnUnknownHalt, http.StatusConflict, http.StatusConflict, 1, 0, 1},
	} {
		t.Run(fmt.Sprint(tc.policy), func(t *testing.T) {
			t.Parallel()
			p := newPayments(t, tc.policy, faults.Hooks{})
			p.bank.loseNext.Store(1)
			first := p.pay("k1", `{"amount":100,"card_token":"tok_1"}`)
			retry := p.pay("k1", `{"amount":100,"card_token":"tok_1"}`)
			if first.Code != tc.firstCode || retry.Code != tc.retryCode {
				t.Fatalf("first %d %s, retry %d %s; want %d, %d", first.Code, first.Body, retry.Code, retry.Body, tc.firstCode, tc.retryCode)
			}
			if tc.policy == httpapi.OnUnknownHalt && (!strings.Contains(retry.Body.String(), "operation-requires-recovery") ||
				!strings.Contains(retry.Body.String(), `"operation_id"`)) {
				t.Errorf("halted: %s, want operation-requires-recovery with the operation id", retry.Body)
			}
			keys, calls := p.bank.acted()
			if keys != 1 || calls != tc.calls || p.bank.verifies != tc.verifies {
				t.Errorf("the bank saw %d keys, %d calls, %d verifies; want 1, %d, %d", keys, calls, p.bank.verifies, tc.calls, tc.verifies)
			}
			if n := p.count(t, `SELECT count(*) FROM payments`); n != 1 {
				t.Errorf("%d payments recorded, want 1", n)
			}
			if n := p.count(t, `SELECT count(*) FROM idempotency_progress`); n != tc.progressAfterAll {
				t.Errorf("%d operations in progress, want %d", n, tc.progressAfterAll)
			}
		})
	}
}

// A crash at each boundary around the bank's call (after the payment's
// recovery point and before the call; after the call and before the
// outcome is recorded) leaves the payment in progress; the completer,
// without any client, drives it to the end from the stored request,
// verifying with the bank first, which acts once; the client's retry then
// gets the answer. The stored request carries no credentials.
func TestPhasedCompleterFinishesACrashedPayment(t *testing.T) {
	dies := errors.New("the process dies here")
	for name, hooks := range map[string]func() faults.Hooks{
		"before the call": func() faults.Hooks {
			var once atomic.Bool
			return faults.Hooks{AfterCheckpoint: func(context.Context, string) error {
				if once.CompareAndSwap(false, true) {
					return dies
				}
				return nil
			}}
		},
		"after the call": func() faults.Hooks {
			var steps atomic.Int32 // AfterClaim runs before each step: the second follows the call
			return faults.Hooks{AfterClaim: func(context.Context, string) error {
				if steps.Add(1) == 2 {
					return dies
				}
				return nil
			}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := newPayments(t, httpapi.OnUnknownVerify, hooks())
			if rec := p.pay("k1", `{"amount":100,"card_token":"tok_1"}`); rec.Code != http.StatusInternalServerError {
				t.Fatalf("the crashed attempt answered %d %s", rec.Code, rec.Body)
			}
			if n := p.count(t, `SELECT count(*) FROM idempotency_progress WHERE position('secret' in convert_from(request, 'UTF8')) = 0`); n != 1 {
				t.Fatalf("%d operations in progress with a request free of credentials, want 1", n)
			}
			// The crash kept the lease; let it run out on the database's clock.
			if _, err := p.pool.Exec(t.Context(), `UPDATE idempotency_progress SET lease_until = now()`); err != nil {
				t.Fatal(err)
			}
			res, err := core.Redrive(t.Context(), p.exec, core.RedriveOptions{})
			if err != nil || res.Completed != 1 {
				t.Fatalf("redrive: %+v, %v; want 1 completed", res, err)
			}
			rec := p.pay("k1", `{"amount":100,"card_token":"tok_1"}`)
			if rec.Code != http.StatusCreated || rec.Header().Get("Idempotent-Replayed") != "true" || !strings.Contains(rec.Body.String(), "approved") {
				t.Errorf("the retry after the completer: %d %s, want the completed answer replayed", rec.Code, rec.Body)
			}
			if keys, _ := p.bank.acted(); keys != 1 {
				t.Errorf("the bank saw %d keys, want 1", keys)
			}
			if n := p.count(t, `SELECT count(*) FROM payments WHERE status = 'approved'`); n != 1 {
				t.Errorf("%d approved payments, want 1", n)
			}
		})
	}
}
