package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// heldShop is the shop whose createOrder, for the external order id
// "held", waits inside its transaction until the test releases it: an
// attempt in progress, held by a barrier.
type heldShop struct {
	shop.Service
	reached chan struct{} // receives once the held order's business method runs
	release chan struct{} // closed to let it finish
}

func (h heldShop) CreateOrder(ctx context.Context, tx pgx.Tx, op *shop.CreateOrderOperation, req *shop.CreateOrderRequest) (shop.CreateOrderResponse, error) {
	if req.Body.ExternalOrderID == "held" {
		h.reached <- struct{}{}
		<-h.release
	}
	return h.Service.CreateOrder(ctx, tx, op, req)
}

// statusService is the orders service with heldShop, on a database of its
// own.
type statusService struct {
	pool *pgxpool.Pool
	h    http.Handler
	shop heldShop
}

func newStatusService(t testing.TB) *statusService {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ctx := context.Background()
	if err := idem.Migrate(ctx, pool, idempotencySchema); err != nil {
		t.Fatal(err)
	}
	if err := createTables(ctx, pool); err != nil {
		t.Fatal(err)
	}
	s := &statusService{pool: pool,
		shop: heldShop{reached: make(chan struct{}), release: make(chan struct{})}}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: idempotencySchema,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	if err := shop.Register(mux, exec, s.shop, demoTenant); err != nil {
		t.Fatal(err)
	}
	s.h = mux
	return s
}

// answer is one HTTP answer as the client reads it.
type answer struct {
	status      int
	contentType string
	body        string
}

// serve sends req and reads the answer.
func (s *statusService) serve(req *http.Request) answer {
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return answer{rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()}
}

// create posts an order of tenant under key.
func (s *statusService) create(tenant, key, externalID, sku string, quantity int) answer {
	body := `{"shop_id":"s1","external_order_id":"` + externalID + `","customer_id":"c1","items":[{"sku":"` + sku + `","quantity":` +
		strconv.Itoa(quantity) + `}],"delivery":{"name":"A","street":"B","city":"C","postal_code":"1","country":"DE"}}`
	req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tenant)
	req.Header.Set("Idempotency-Key", key)
	return s.serve(req)
}

// lookup asks the status route about key as tenant.
func (s *statusService) lookup(tenant, key string) (answer, http.Header) {
	req := httptest.NewRequest(http.MethodGet, "/orders/attempts/"+key, nil)
	req.Header.Set("Authorization", "Bearer "+tenant)
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return answer{rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()}, rec.Header()
}

// operationID reads the operation id of key's record in tenant.
func (s *statusService) operationID(t *testing.T, tenant, key string) string {
	t.Helper()
	var id string
	if err := s.pool.QueryRow(context.Background(), "SELECT operation_id::text FROM idempotency.idempotency_record WHERE scope = $1 AND idempotency_key = $2",
		tenant, key).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// wantAnswer fails t unless got is want, exactly.
func wantAnswer(t *testing.T, what string, got, want answer) {
	t.Helper()
	if got != want {
		t.Fatalf("%s:\n got %d %s %s\nwant %d %s %s", what, got.status, got.contentType, got.body, want.status, want.contentType, want.body)
	}
}

const unknownBody = `{"type":"https://github.com/idemgen/idemgen/blob/main/docs/problems.md#attempt-unknown","title":"Attempt unknown","status":404,` +
	`"detail":"No attempt of this operation with this idempotency key is known in your scope."}`

// TestStatusRoute drives an attempt of createOrder into each state and
// asks GET /orders/attempts/{key} about it, requiring the exact answer.
func TestStatusRoute(t *testing.T) {
	s := newStatusService(t)
	unknown := answer{http.StatusNotFound, "application/problem+json", unknownBody}

	t.Run("unknown", func(t *testing.T) {
		got, _ := s.lookup("tenant-a", "never-sent")
		wantAnswer(t, "a key never sent", got, unknown)
	})

	t.Run("in_progress_then_completed", func(t *testing.T) {
		done := make(chan answer)
		go func() { done <- s.create("tenant-a", "k-held", "held", "SKU-1", 1) }()
		<-s.shop.reached
		got, _ := s.lookup("tenant-a", "k-held")
		close(s.shop.release)
		first := <-done
		wantAnswer(t, "while the attempt is held in its transaction", got, answer{http.StatusOK, "application/json", `{"state":"in_progress"}`})
		if first.status != http.StatusCreated {
			t.Fatalf("the held order: %+v", first)
		}
		id := s.operationID(t, "tenant-a", "k-held")
		got, _ = s.lookup("tenant-a", "k-held")
		wantAnswer(t, "once it completed", got, answer{http.StatusOK, "application/json",
			`{"state":"completed","operation_id":"` + id + `","status":201,"location":"/orders/` + id + `","content_type":"application/json","response":` + first.body + `}`})
	})

	t.Run("failed", func(t *testing.T) {
		first := s.create("tenant-a", "k-failed", "too-many", "SKU-3", 6)
		if first.status != http.StatusConflict {
			t.Fatalf("an order of 6 of SKU-3 (5 in stock): %+v", first)
		}
		id := s.operationID(t, "tenant-a", "k-failed")
		got, _ := s.lookup("tenant-a", "k-failed")
		wantAnswer(t, "a stored 409", got, answer{http.StatusOK, "application/json",
			`{"state":"failed","operation_id":"` + id + `","status":409,"content_type":"application/problem+json","response":` + first.body + `}`})
	})

	t.Run("requires_recovery", func(t *testing.T) {
		if first := s.create("tenant-a", "k-halted", "halted", "SKU-1", 1); first.status != http.StatusCreated {
			t.Fatalf("the order: %+v", first)
		}
		// createOrder is atomic and never halts by itself (a phased
		// operation does, on an external call whose outcome is unknown):
		// its record is put in the state that halt leaves.
		if _, err := s.pool.Exec(context.Background(), `UPDATE idempotency.idempotency_record
			SET state = 'requires_recovery', response_status = NULL, response_headers = NULL, response_body = NULL
			WHERE scope = 'tenant-a' AND idempotency_key = 'k-halted'`); err != nil {
			t.Fatal(err)
		}
		id := s.operationID(t, "tenant-a", "k-halted")
		got, _ := s.lookup("tenant-a", "k-halted")
		wantAnswer(t, "an operation halted for support", got, answer{http.StatusOK, "application/json",
			`{"state":"requires_recovery","operation_id":"` + id + `"}`})
	})

	t.Run("other_tenant_answers_as_unknown", func(t *testing.T) {
		foreign, fh := s.lookup("tenant-b", "k-held")
		never, nh := s.lookup("tenant-b", "k-never")
		wantAnswer(t, "tenant-a's key asked by tenant-b", foreign, unknown)
		fh.Del("Date")
		nh.Del("Date")
		if foreign != never || !sameHeader(fh, nh) {
			t.Fatalf("another tenant's key answers %+v %v, an unknown key %+v %v", foreign, fh, never, nh)
		}
	})

	t.Run("malformed_key", func(t *testing.T) {
		got, _ := s.lookup("tenant-a", "%22unterminated")
		wantAnswer(t, "a malformed key", got, answer{http.StatusBadRequest, "application/problem+json",
			`{"type":"https://github.com/idemgen/idemgen/blob/main/docs/problems.md#idempotency-key-malformed","title":"Idempotency key malformed","status":400,` +
				`"detail":"The path parameter key is not an idempotency key: unterminated string.","violations":[{"in":"path","parameter":"key","reason":"unterminated string"}]}`})
	})

	t.Run("expired", func(t *testing.T) {
		id := s.operationID(t, "tenant-a", "k-held")
		s.age(t, "tenant-a", 72*time.Hour+time.Second) // past createOrder's retention, on the database's clock
		got, _ := s.lookup("tenant-a", "k-held")
		wantAnswer(t, "past retention", got, answer{http.StatusOK, "application/json", `{"state":"expired","operation_id":"` + id + `"}`})
	})
}

// age moves scope's records d into the past, as the database's clock
// sees them (idemtest.Age, on a connection whose search_path is the
// runtime's schema).
func (s *statusService) age(t *testing.T, scope string, d time.Duration) {
	t.Helper()
	conn, err := s.pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(t.Context(), "SET search_path TO "+idempotencySchema); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(context.Background(), "RESET search_path")
	if err := idemtest.Age(t.Context(), conn, scope, d); err != nil {
		t.Fatal(err)
	}
}

// sameHeader reports whether a and b hold the same fields and values.
func sameHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if strings.Join(a[k], "\n") != strings.Join(b[k], "\n") {
			return false
		}
	}
	return true
}
