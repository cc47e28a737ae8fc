package shop

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// shop is the example served over HTTP on a database of the test's own.
type shop struct {
	t    *testing.T
	h    http.Handler
	pool *pgxpool.Pool
	keys atomic.Int64
}

// tenantOf is the test's scope: the bearer token, as the example's main
// takes it.
func tenantOf(r *http.Request) (string, error) {
	tenant, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return tenant, nil
}

func newShop(t *testing.T) *shop {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), pgtest.ConnString(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), SchemaSQL); err != nil {
		t.Fatal(err)
	}
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	if err := Register(mux, exec, Service{}, tenantOf); err != nil {
		t.Fatal(err)
	}
	return &shop{t: t, h: mux, pool: pool}
}

// call is one request to the shop.
type call struct {
	path        string
	body        string
	contentType string // "-" sends none; "a\nb" sends two fields
	tenant      string
	key         string // empty: a new key
}

func (s *shop) do(c call) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, c.path, strings.NewReader(c.body))
	switch c.contentType {
	case "":
		req.Header.Set("Content-Type", "application/json")
	case "-":
	default: // "a\nb" sends two fields
		for ct := range strings.SplitSeq(c.contentType, "\n") {
			req.Header.Add("Content-Type", ct)
		}
	}
	tenant := c.tenant
	if tenant == "" {
		tenant = "tenant-1"
	}
	req.Header.Set("Authorization", "Bearer "+tenant)
	key := c.key
	if key == "" {
		key = fmt.Sprintf("key-%d", s.keys.Add(1))
	}
	req.Header.Set("Idempotency-Key", key)
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// records counts what the shop and the runtime hold.
func (s *shop) records() (records, orders int) {
	s.t.Helper()
	if err := s.pool.QueryRow(s.t.Context(), "SELECT (SELECT count(*) FROM idempotency_record), (SELECT count(*) FROM orders)").Scan(&records, &orders); err != nil {
		s.t.Fatal(err)
	}
	return records, orders
}

// pointers returns the violations' places of a 400 problem.
func pointers(t *testing.T, rec *httptest.ResponseRecorder) []string {
	t.Helper()
	return idemtest.Violations(t, idemtest.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()})
}

// order is a valid createOrder body with edit applied to its JSON object.
func order(edit func(m map[string]any)) string {
	m := map[string]any{
		"shop_id":           "shop-1",
		"external_order_id": fmt.Sprintf("V-%d", orderNumbers.Add(1)),
		"customer_id":       "c42",
		"items":             []any{map[string]any{"sku": "SKU-1", "quantity": 2}},
		"delivery":          map[string]any{"name": "Ann", "street": "1 Main St", "city": "Oslo", "postal_code": "0150", "country": "NO"},
	}
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func item(sku string, quantity any) map[string]any {
	return map[string]any{"sku": sku, "quantity": quantity}
}

func delivery(m map[string]any) map[string]any { return m["delivery"].(map[string]any) }

// Must show 1: for each constraint kind of the example's schema a valid
// and an invalid request; the invalid ones answer 400 with every
// violation's pointer and leave the record count unchanged, and none of
// the requests issue 10 lists answers 201 where it must not, or 500.
func TestRequestValidation(t *testing.T) {
	s := newShop(t)
	long := strings.Repeat("x", 65)
	tests := []struct {
		name     string
		call     call
		status   int
		pointers []string // of a 400
	}{
		{"valid order", call{path: "/orders", body: order(nil)}, 201, nil},
		{"empty object", call{path: "/orders", body: `{}`}, 400, []string{"/shop_id", "/external_order_id", "/customer_id", "/items", "/delivery"}},
		{"null body", call{path: "/orders", body: `null`}, 400, []string{""}},
		{"empty body", call{path: "/orders", body: ``}, 400, []string{""}},
		{"minItems", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{} })}, 400, []string{"/items"}},
		{"maxItems", call{path: "/orders", body: order(func(m map[string]any) {
			var items []any
			for i := range 101 {
				items = append(items, item(fmt.Sprintf("SKU-%d", i), 1))
			}
			m["items"] = items
		})}, 400, []string{"/items"}},
		{"required nested", call{path: "/orders", body: order(func(m map[string]any) { delete(m, "delivery") })}, 400, []string{"/delivery"}},
		{"required in an item", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{map[string]any{"sku": "SKU-1"}} })}, 400, []string{"/items/0/quantity"}},
		{"minimum 0", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU-1", 0)} })}, 400, []string{"/items/0/quantity"}},
		{"minimum -5", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU-1", -5)} })}, 400, []string{"/items/0/quantity"}},
		{"maximum", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU-1", 1001)} })}, 400, []string{"/items/0/quantity"}},
		{"integer type", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU-1", 1.5)} })}, 400, []string{"/items/0/quantity"}},
		{"string for an integer", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU-1", "2")} })}, 400, []string{"/items/0/quantity"}},
		{"uniqueItems", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU-1", 1), item("SKU-1", 1)} })}, 400, []string{"/items/1"}},
		{"duplicate SKU, the business refuses", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU-1", 1), item("SKU-1", 2)} })}, 422, nil},
		{"minLength", call{path: "/orders", body: order(func(m map[string]any) { m["customer_id"] = "" })}, 400, []string{"/customer_id"}},
		{"maxLength", call{path: "/orders", body: order(func(m map[string]any) { m["shop_id"] = long })}, 400, []string{"/shop_id"}},
		{"maxLength counts characters", call{path: "/orders", body: order(func(m map[string]any) { m["customer_id"] = strings.Repeat("ø", 64) })}, 201, nil},
		{"pattern", call{path: "/orders", body: order(func(m map[string]any) { m["items"] = []any{item("SKU 1", 1)}; delivery(m)["country"] = "no" })}, 400, []string{"/delivery/country", "/items/0/sku"}},
		{"format date-time", call{path: "/orders", body: order(func(m map[string]any) { m["client_sent_at"] = "yesterday" })}, 400, []string{"/client_sent_at"}},
		{"format date-time valid", call{path: "/orders", body: order(func(m map[string]any) { m["client_sent_at"] = "2026-12-01T10:00:00Z" })}, 201, nil},
		{"additionalProperties false", call{path: "/orders", body: order(func(m map[string]any) { m["coupon"] = "FREE" })}, 400, []string{"/coupon"}},
		{"case variant is not the member", call{path: "/orders", body: `{"customer_id":"c42","CUSTOMER_ID":"evil","shop_id":"s","external_order_id":"e-case","items":[{"sku":"SKU-1","quantity":1}],"delivery":{"name":"A","street":"S","city":"C","postal_code":"1","country":"NO"}}`}, 400, []string{"/CUSTOMER_ID"}},
		{"duplicate member", call{path: "/orders", body: `{"customer_id":"c42","customer_id":"evil","shop_id":"s","external_order_id":"e-dup","items":[{"sku":"SKU-1","quantity":1}],"delivery":{"name":"A","street":"S","city":"C","postal_code":"1","country":"NO"}}`}, 400, []string{"/customer_id"}},
		{"NUL", call{path: "/orders", body: order(func(m map[string]any) { m["customer_id"] = "c\u0000x" })}, 400, []string{"/customer_id"}},
		{"integer beyond 2^53", call{path: "/orders", body: strings.Replace(order(nil), `"quantity":2`, `"quantity":9007199254740993`, 1)}, 400, []string{"/items/0/quantity"}},
		{"every violation at once", call{path: "/orders", body: `{"items":[{"sku":"","quantity":0}],"delivery":{"country":"Norway"},"x":1}`}, 400, []string{
			"/items/0/sku", "/items/0/quantity", "/delivery/country", "/delivery/name", "/delivery/street", "/delivery/city", "/delivery/postal_code",
			"/x", "/shop_id", "/external_order_id", "/customer_id"}},
		{"enum", call{path: "/orders/o-1/cancel", body: `{"reason":"bored"}`}, 400, []string{"/reason"}},
		{"path parameter maxLength", call{path: "/orders/" + long + "/cancel", body: `{"reason":"bored"}`}, 400, []string{"path:order-id", "/reason"}},
		{"text/plain", call{path: "/orders", body: order(nil), contentType: "text/plain"}, 415, nil},
		{"two Content-Type fields", call{path: "/orders", body: order(nil), contentType: "application/json\ntext/plain"}, 415, nil},
		{"no Content-Type, one declared", call{path: "/orders", body: order(nil), contentType: "-"}, 201, nil},
		{"3,000-byte tenant", call{path: "/orders", body: order(nil), tenant: strings.Repeat("t", 3000)}, 403, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			records, orders := s.records()
			rec := s.do(tt.call)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.status == http.StatusUnsupportedMediaType && rec.Header().Get("Accept-Post") != "application/json" {
				t.Errorf("Accept-Post %q", rec.Header().Get("Accept-Post"))
			}
			if tt.status/100 == 2 {
				return
			}
			if tt.status == http.StatusBadRequest {
				if diff := cmp.Diff(tt.pointers, pointers(t, rec)); diff != "" {
					t.Errorf("violation pointers (-want +got):\n%s", diff)
				}
			}
			gotRecords, gotOrders := s.records()
			if tt.status != http.StatusUnprocessableEntity && gotRecords != records || gotOrders != orders {
				t.Errorf("records %d -> %d, orders %d -> %d: a refused request left something behind", records, gotRecords, orders, gotOrders)
			}
		})
	}
}

// A request refused for its body claims nothing: the corrected retry with
// the same key runs.
func TestCorrectedRetryRuns(t *testing.T) {
	s := newShop(t)
	bad := order(func(m map[string]any) { m["items"] = []any{item("SKU-1", 0)} })
	if rec := s.do(call{path: "/orders", body: bad, key: "retry-1"}); rec.Code != http.StatusBadRequest {
		t.Fatalf("invalid order: %d %s", rec.Code, rec.Body)
	}
	if rec := s.do(call{path: "/orders", body: order(nil), key: "retry-1"}); rec.Code != http.StatusCreated {
		t.Fatalf("corrected retry: %d %s", rec.Code, rec.Body)
	}
}
