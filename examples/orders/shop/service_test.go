package shop

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// shopServer serves the generated routes with h on the shop's tables and
// the idempotency tables, in a schema of the test's own. The tenant is the
// X-Tenant header, a stand-in for the service's authentication.
func shopServer(t *testing.T, h Handlers) (http.Handler, *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), pgtest.ConnString(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), SchemaSQL); err != nil {
		t.Fatal(err)
	}
	if err := idem.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	tenant := func(r *http.Request) (string, error) {
		if s := r.Header.Get("X-Tenant"); s != "" {
			return s, nil
		}
		return "", errors.New("no X-Tenant header")
	}
	mux := http.NewServeMux()
	if err := Register(mux, exec, h, tenant); err != nil {
		t.Fatal(err)
	}
	return mux, pool
}

// postOrder sends an order as JSON with an Idempotency-Key.
func postOrder(h http.Handler, key string, order *NewOrder) *httptest.ResponseRecorder {
	body, _ := json.Marshal(order)
	req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Tenant", "tenant-1")
	req.Header.Set("Idempotency-Key", key)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestCreatedOrderLocationReplayed: the 201 of createOrder carries the
// Location the service set, a typed header of the documented 201, and the
// replay of the same request carries the same Location and body with
// Idempotent-Replayed: true.
func TestCreatedOrderLocationReplayed(t *testing.T) {
	h, _ := shopServer(t, Service{})
	order := newOrder()
	first := postOrder(h, "k-location", order)
	if first.Code != http.StatusCreated {
		t.Fatalf("first: status %d, want 201: %s", first.Code, first.Body)
	}
	var created Order
	if err := json.Unmarshal(first.Body.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	location := first.Header().Get("Location")
	if want := "/orders/" + created.ID; location != want {
		t.Fatalf("first: Location %q, want %q", location, want)
	}
	if first.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: Idempotent-Replayed %q on a new operation", first.Header().Get("Idempotent-Replayed"))
	}
	replay := postOrder(h, "k-location", order)
	if replay.Code != http.StatusCreated || replay.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: status %d, Idempotent-Replayed %q; want 201 and true", replay.Code, replay.Header().Get("Idempotent-Replayed"))
	}
	if got := replay.Header().Get("Location"); got != location {
		t.Errorf("replay: Location %q, want the first answer's %q", got, location)
	}
	if diff := cmp.Diff(first.Body.String(), replay.Body.String()); diff != "" {
		t.Errorf("replay body (-first +replay):\n%s", diff)
	}
	if got := replay.Header().Get("Content-Type"); got != "application/json" {
		t.Errorf("replay: Content-Type %q, want application/json", got)
	}
}

// TestOutOfStockIsTheDocumented409: an order the stock cannot cover gets
// the 409 its spec documents (application/problem+json, OrderConflict
// naming the item), the order is rolled back, and under store-failures
// [4xx] the retry replays the same 409.
func TestOutOfStockIsTheDocumented409(t *testing.T) {
	h, pool := shopServer(t, Service{})
	order := newOrder()
	order.Items = []OrderItem{{Sku: "SKU-3", Quantity: 6}}
	first := postOrder(h, "k-stock", order)
	if first.Code != http.StatusConflict {
		t.Fatalf("status %d, want 409: %s", first.Code, first.Body)
	}
	if ct := first.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	var got OrderConflict
	if err := json.Unmarshal(first.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	detail, sku, available := "6 of SKU-3 ordered, 5 in stock", "SKU-3", int64(5)
	want := OrderConflict{Type: ProblemOutOfStock, Title: "Out of stock", Status: http.StatusConflict, Detail: &detail, Sku: &sku, Available: &available}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("409 body (-want +got):\n%s", diff)
	}
	var orders int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM orders").Scan(&orders); err != nil {
		t.Fatal(err)
	}
	if orders != 0 {
		t.Errorf("%d orders after the refusal, want 0: the business changes are rolled back", orders)
	}
	replay := postOrder(h, "k-stock", order)
	if replay.Code != http.StatusConflict || replay.Header().Get("Idempotent-Replayed") != "true" || replay.Body.String() != first.Body.String() {
		t.Errorf("retry: status %d, Idempotent-Replayed %q, body %s; want the stored 409 replayed", replay.Code, replay.Header().Get("Idempotent-Replayed"), replay.Body)
	}
}

// TestUnimplementedAnswers501: an operation the service has not
// implemented yet answers 501 problem+json through the embedded
// UnimplementedHandlers, and nothing is stored, so a retry runs again.
func TestUnimplementedAnswers501(t *testing.T) {
	h, _ := shopServer(t, struct{ UnimplementedHandlers }{})
	for i, label := range []string{"first", "retry"} {
		rec := postOrder(h, "k-unimplemented", newOrder())
		if rec.Code != http.StatusNotImplemented || rec.Header().Get("Content-Type") != "application/problem+json" {
			t.Fatalf("%s: status %d, Content-Type %q; want 501 problem+json: %s", label, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if i == 1 && rec.Header().Get("Idempotent-Replayed") != "" {
			t.Errorf("retry: replayed a 501, which the default store-failures do not store")
		}
	}
}
