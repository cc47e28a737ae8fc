package idemops_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// bank is the provider a phased payment charges: it acts once per key,
// counts every call, and loses the answers of the first lose calls after
// acting on them.
type bank struct {
	mu    sync.Mutex
	calls map[string]int
	lose  int
}

func (b *bank) charge(key string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls[key]++
	if b.lose > 0 {
		b.lose--
		return "", errors.New("bank: connection reset after the request was sent")
	}
	return "approved", nil
}

// seen returns the keys the bank was called with and how often.
func (b *bank) seen() map[string]int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.calls)
}

// paymentService is a phased payment operation mounted the way generated
// code mounts one (httpapi.NewPhasedHandler), on the runtime's tables in
// schema support: record the payment, charge the bank with the step's
// key under the halt policy, record the outcome and answer 201.
type paymentService struct {
	db   db
	bank *bank
	h    http.Handler
}

// newPaymentService starts the service; the bank loses the answer of its
// first call.
func newPaymentService(t *testing.T) *paymentService {
	t.Helper()
	d := newDB(t)
	d.exec(t, `CREATE TABLE payments (id bigserial PRIMARY KEY, amount int NOT NULL, status text)`)
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Schema: "support", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s := &paymentService{db: d, bank: &bank{calls: map[string]int{}, lose: 1}}
	op := httpapi.Phased[payment]{
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
				w.EndObject()
			})
		},
		Steps: []httpapi.Step[payment]{
			{Name: "record_payment", Local: func(ctx context.Context, tx pgx.Tx, _ *core.Operation, _ *httpapi.Request, p *payment, _ []byte) ([]byte, *httpapi.Response, error) {
				var id int64
				err := tx.QueryRow(ctx, `INSERT INTO payments (amount) VALUES ($1) RETURNING id`, p.Amount).Scan(&id)
				return fmt.Appendf(nil, "%d", id), nil, err
			}},
			{Name: "charge_bank", OnUnknown: httpapi.OnUnknownHalt, Timeout: time.Second,
				Call: func(_ context.Context, _ *core.Operation, key string, _ *httpapi.Request, _ *payment, in []byte) ([]byte, error) {
					status, err := s.bank.charge(key)
					return fmt.Appendf(in, ":%s", status), err
				}},
			{Name: "record_outcome", Local: func(ctx context.Context, tx pgx.Tx, _ *core.Operation, _ *httpapi.Request, _ *payment, in []byte) ([]byte, *httpapi.Response, error) {
				id, status, _ := strings.Cut(string(in), ":")
				if _, err := tx.Exec(ctx, `UPDATE payments SET status = $2 WHERE id = $1`, id, status); err != nil {
					return nil, nil, err
				}
				return nil, &httpapi.Response{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}},
					Body: fmt.Appendf(nil, `{"id":%s,"status":%q}`, id, status)}, nil
			}},
		},
	}
	tenant := func(*http.Request) (string, error) { return "merchant-1", nil }
	if s.h, err = httpapi.NewPhasedHandler(exec, op, tenant, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// payment is the phased operation's typed request.
type payment struct {
	Amount int `json:"amount"`
}

// pay is a client's request (or retry) under key.
func (s *paymentService) pay(key string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/payments", strings.NewReader(`{"amount":100}`))
	req.Header.Set("Idempotency-Key", key)
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// halted pays under key, which halts on the bank's lost answer, and
// returns the operation id the 409 names for support, checking that a
// retry is refused the same way.
func (s *paymentService) halted(t *testing.T, key string) string {
	t.Helper()
	var problem struct {
		Type        string `json:"type"`
		OperationID string `json:"operation_id"`
	}
	for range 2 { // the halted attempt, then a retry
		rec := s.pay(key)
		if err := json.Unmarshal(rec.Body.Bytes(), &problem); err != nil || rec.Code != http.StatusConflict ||
			problem.Type != httpapi.ProblemRequiresRecovery || problem.OperationID == "" {
			t.Fatalf("the payment whose charge was lost: %d %s, want 409 operation-requires-recovery naming the operation", rec.Code, rec.Body)
		}
	}
	return problem.OperationID
}

// count runs a counting query.
func (s *paymentService) count(t *testing.T, sql string) int {
	t.Helper()
	var n int
	if err := s.db.pool.QueryRow(t.Context(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// replayed requires rec to be the replay of status with body and
// content type.
func replayed(t *testing.T, rec *httptest.ResponseRecorder, status int, contentType, body string) {
	t.Helper()
	if rec.Code != status || rec.Body.String() != body || rec.Header().Get("Content-Type") != contentType ||
		rec.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry got %d %v %s; want %d, Content-Type %s, Idempotent-Replayed: true, body %s",
			rec.Code, rec.Header(), rec.Body, status, contentType, body)
	}
}

// settled requires the operation to be in state with one support action,
// entry, and no progress left.
func settled(t *testing.T, c *idemops.Client, id string, state idemops.OperationState, entry idemops.OperationAuditEntry) {
	t.Helper()
	op, err := c.Operation(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if op.State != state || op.Progress != nil || len(op.Audit) != 1 || op.Audit[0] != entry {
		t.Errorf("after the retry the operation is %s with progress %+v and audit %+v; want %s, no progress, the one action %+v",
			op.State, op.Progress, op.Audit, state, entry)
	}
}

// A payment halted on the bank's lost answer shows where it stopped;
// support resumes it (ops resume), which is audited and puts it back in
// progress with a lease that has run out; the client's next retry then
// takes it over from its last recovery point and calls the bank once
// more, with the same step key, and completes it; later retries replay.
func TestResumedOperationIsCompletedByTheNextRetryWithTheSameStepKey(t *testing.T) {
	s := newPaymentService(t)
	id := s.halted(t, "pay-1")
	c := s.db.client(t, idemops.Config{})
	ctx := t.Context()

	op, err := c.Operation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	halted := idemops.Progress{RecoveryPoint: "record_payment", Lease: idemops.LeaseHalted, Attempts: 1}
	if op.State != idemops.OperationRequiresRecovery || op.Name != "createPayment" || op.Progress == nil || *op.Progress != halted ||
		len(op.Audit) != 0 {
		t.Fatalf("the halted payment: %s %s, progress %+v, audit %+v; want requires_recovery createPayment at %+v",
			op.State, op.Name, op.Progress, op.Audit, halted)
	}
	before := s.bank.seen()

	entry, err := c.Resume(ctx, id, idemops.Action{Actor: "alice", Reason: "the bank has no charge under the step's key"})
	if err != nil {
		t.Fatal(err)
	}
	if entry.From != idemops.OperationRequiresRecovery || entry.To != idemops.OperationInProgress || entry.ID == 0 || entry.At.IsZero() ||
		entry.Scope != "merchant-1" || entry.OperationID != id || entry.Actor != "alice" {
		t.Errorf("Resume's audit entry: %+v", entry)
	}
	op, err = c.Operation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if op.State != idemops.OperationInProgress || op.Progress == nil || op.Progress.Lease != idemops.LeaseExpired ||
		op.Progress.ResumedBy != "alice" || op.Progress.RecoveryPoint != "record_payment" || op.Progress.LeaseUntil.IsZero() ||
		len(op.Audit) != 1 || op.Audit[0] != entry {
		t.Fatalf("the resumed payment: %s, progress %+v, audit %+v; want in_progress, its lease run out, resumed by alice", op.State, op.Progress, op.Audit)
	}
	if n := s.count(t, `SELECT count(*) FROM support.idempotency_operation_audit WHERE from_state = 'requires_recovery' AND to_state = 'in_progress'`); n != 1 {
		t.Errorf("%d audit rows of the resume, want 1", n)
	}

	rec := s.pay("pay-1")
	if rec.Code != http.StatusCreated || !strings.Contains(rec.Body.String(), `"status":"approved"`) || rec.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("the retry after the resume: %d %v %s; want the payment completed now, 201 approved", rec.Code, rec.Header(), rec.Body)
	}
	after := s.bank.seen()
	if len(before) != 1 || len(after) != 1 {
		t.Fatalf("the bank saw the keys %v, then %v; want one step key", before, after)
	}
	for key, n := range before {
		if after[key] != n+1 {
			t.Errorf("the bank saw %d calls under %s after the resume, want %d: one more, with the same key", after[key], key, n+1)
		}
	}
	replayed(t, s.pay("pay-1"), http.StatusCreated, "application/json", rec.Body.String())
	if n := s.count(t, `SELECT count(*) FROM payments WHERE status = 'approved'`); n != 1 {
		t.Errorf("%d approved payments, want 1", n)
	}
	settled(t, c, id, idemops.OperationCompleted, entry)
}

// support resolves a halted payment as completed with the answer the
// operation would have given (ops resolve --as completed): audited, the
// payment completed without calling the bank again, and the client's
// next retry receives exactly that answer, stored as the HTTP adapter
// stores the answers it gives.
func TestResolvedAsCompletedIsWhatTheNextRetryReceives(t *testing.T) {
	s := newPaymentService(t)
	id := s.halted(t, "pay-1")
	c := s.db.client(t, idemops.Config{})
	const body = `{"id":1,"status":"approved"}`
	entry, err := c.ResolveOperation(t.Context(), id, idemops.Resolution{To: idemops.OperationCompleted,
		Answer: idemops.Answer{Status: http.StatusCreated, ContentType: "application/json", Body: []byte(body)}},
		idemops.Action{Actor: "alice", Reason: "the bank's statement shows the charge approved"})
	if err != nil {
		t.Fatal(err)
	}
	if entry.From != idemops.OperationRequiresRecovery || entry.To != idemops.OperationCompleted || entry.ID == 0 {
		t.Errorf("the resolution's audit entry: %+v", entry)
	}
	replayed(t, s.pay("pay-1"), http.StatusCreated, "application/json", body)
	if calls := s.bank.seen(); len(calls) != 1 || slices.Collect(maps.Values(calls))[0] != 1 {
		t.Errorf("the bank saw %v, want the one lost call", calls)
	}
	if n := s.count(t, `SELECT count(*) FROM support.idempotency_progress`); n != 0 {
		t.Errorf("%d progress rows left, want 0", n)
	}
	settled(t, c, id, idemops.OperationCompleted, entry)

	// Stored as the adapter stores an answer it gave: a payment that
	// completed by itself keeps the same headers.
	if rec := s.pay("pay-2"); rec.Code != http.StatusCreated {
		t.Fatalf("a second payment: %d %s", rec.Code, rec.Body)
	}
	var resolved, given string
	if err := s.db.pool.QueryRow(t.Context(), `SELECT
	    (SELECT response_headers::text FROM support.idempotency_record WHERE idempotency_key = 'pay-1'),
	    (SELECT response_headers::text FROM support.idempotency_record WHERE idempotency_key = 'pay-2')`).Scan(&resolved, &given); err != nil {
		t.Fatal(err)
	}
	if resolved != given || resolved != `{"Content-Type": ["application/json"]}` {
		t.Errorf("the resolution's stored headers %s, the adapter's %s; want both {\"Content-Type\": [\"application/json\"]}", resolved, given)
	}
}

// support resolves a halted payment as failed with a problem (ops resolve
// --as failed): audited, and the client's next retry receives that
// problem, rendered as the adapter renders a business refusal.
func TestResolvedAsFailedIsWhatTheNextRetryReceives(t *testing.T) {
	s := newPaymentService(t)
	id := s.halted(t, "pay-1")
	c := s.db.client(t, idemops.Config{})
	problem := idemops.Problem{Status: http.StatusPaymentRequired, Type: "https://example.com/problems/card-declined",
		Title: "Card declined", Detail: "The bank declined the charge; no money moved."}
	entry, err := c.ResolveOperation(t.Context(), id, idemops.Resolution{To: idemops.OperationFailed, Problem: problem},
		idemops.Action{Actor: "bob", Reason: "the bank declined the charge (ticket 4711)"})
	if err != nil {
		t.Fatal(err)
	}
	if entry.From != idemops.OperationRequiresRecovery || entry.To != idemops.OperationFailed || entry.Actor != "bob" {
		t.Errorf("the resolution's audit entry: %+v", entry)
	}
	rec := s.pay("pay-1")
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("the retry's body %s: %v", rec.Body, err)
	}
	want := map[string]any{"type": problem.Type, "title": problem.Title, "status": float64(problem.Status), "detail": problem.Detail}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the retry's problem (-want +got):\n%s", diff)
	}
	replayed(t, rec, http.StatusPaymentRequired, "application/problem+json", rec.Body.String())
	replayed(t, s.pay("pay-1"), http.StatusPaymentRequired, "application/problem+json", rec.Body.String())
	settled(t, c, id, idemops.OperationFailed, entry)
}
