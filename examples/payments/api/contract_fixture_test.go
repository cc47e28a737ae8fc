package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	removeBankBinary() // the process tests' build of the bank simulator
	os.Exit(code)
}

// fakeBank is the contract tests' bank: like the simulator in ../bank, it
// acts once per idempotency key and answers a repeated key with its first
// decision, and it remembers which card each key charged, so that the
// fixture can count the charges of a scope.
type fakeBank struct {
	mu        sync.Mutex
	decisions map[string]Decision
	cards     map[string]string // the card of each key charged
}

// newFakeBank serves a fake bank until t ends, and returns the client of
// the service and the bank.
func newFakeBank(t *testing.T) (*Bank, *fakeBank) {
	fb := &fakeBank{decisions: map[string]Decision{}, cards: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(fb.serve))
	t.Cleanup(srv.Close)
	return &Bank{URL: srv.URL}, fb
}

func (fb *fakeBank) serve(w http.ResponseWriter, r *http.Request) {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	switch r.Method {
	case http.MethodPost:
		key := r.Header.Get("Idempotency-Key")
		var req struct {
			CardToken string `json:"card_token"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || key == "" {
			http.Error(w, "bad charge", http.StatusBadRequest)
			return
		}
		d, ok := fb.decisions[key]
		if !ok {
			d = Decision{ChargeID: int64(len(fb.decisions) + 1), Status: "approved"}
			fb.decisions[key], fb.cards[key] = d, req.CardToken
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(d)
	case http.MethodGet:
		d, ok := fb.decisions[r.PathValue("key")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(d)
	}
}

// charges counts the keys the bank acted on for card.
func (fb *fakeBank) charges(card string) int {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	n := 0
	for _, c := range fb.cards {
		if c == card {
			n++
		}
	}
	return n
}

// cardOf is the card of a scope's payments: one per scope, so the bank's
// charges can be counted by scope.
func cardOf(scope string) string {
	sum := sha256.Sum256([]byte(scope))
	return "tok_" + hex.EncodeToString(sum[:12])
}

func newContractFixture(t *testing.T) *contractFixture {
	cs := pgtest.ConnString(t)
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), Schema); err != nil {
		t.Fatal(err)
	}
	bank, fb := newFakeBank(t)
	handlers := Handlers(Service{Bank: bank})
	if os.Getenv(brokenChildEnv) != "" {
		handlers = randomKeyService{Service{Bank: bank}} // the child of TestContractCatchesAChargeWithoutTheStepKey
	}
	return &contractFixture{
		Handlers:   handlers,
		ConnString: cs,
		CreatePayment: idemtest.Fixture[CreatePaymentRequest]{
			Request: func(scope string) *CreatePaymentRequest {
				return &CreatePaymentRequest{Body: &NewPayment{Amount: 1250, Currency: NewPaymentCurrencyEUR, CardToken: cardOf(scope)}}
			},
			Effects: func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error) {
				var n int
				err := pool.QueryRow(ctx, `SELECT count(*) FROM payments WHERE merchant = $1`, scope).Scan(&n)
				return n, err
			},
			External: func(ctx context.Context, _ *pgxpool.Pool, scope string) (int, error) {
				return fb.charges(cardOf(scope)), nil
			},
		},
	}
}

// randomKeyService is the service broken on purpose: it charges under a
// key of its own instead of the step's key, so the bank cannot recognise a
// repeated call (TestContractCatchesAChargeWithoutTheStepKey).
type randomKeyService struct{ Service }

func (s randomKeyService) CreatePaymentChargeCard(ctx context.Context, op *CreatePaymentOperation, _ string, req *CreatePaymentRequest, in *PaymentRecord) (*Charge, error) {
	return s.Service.CreatePaymentChargeCard(ctx, op, rand.Text(), req, in)
}

func (s randomKeyService) CreatePaymentChargeCardVerify(ctx context.Context, op *CreatePaymentOperation, _ string, req *CreatePaymentRequest, in *PaymentRecord) (*Charge, bool, error) {
	return s.Service.CreatePaymentChargeCardVerify(ctx, op, rand.Text(), req, in)
}
