package schema_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/schema"
)

// shopDDL is the business side of the tests that run operations, in
// schema public: a stock row per SKU, whose row lock is the business lock
// an order takes, and the orders.
const shopDDL = `CREATE TABLE public.stock (sku text PRIMARY KEY, qty bigint NOT NULL);
CREATE TABLE public.orders (id bigserial PRIMARY KEY, tenant text NOT NULL, sku text NOT NULL)`

// orderContract is createOrder's contract: the SKU is significant.
func orderContract() idemimpl.Contract {
	return idemimpl.Contract{
		Operation:     "createOrder",
		Method:        http.MethodPost,
		Route:         "/orders",
		Key:           idemimpl.KeySpec{},
		ReplayHeaders: []string{"Location"},
	}
}

// createOrder locks the SKU's stock row (FOR UPDATE: it waits while another
// transaction holds it), takes one and answers 201 with the order.
// entered, when not nil, is called with the SKU and the session's pid just
// before the lock.
func createOrder(entered func(sku string, pid int)) idemimpl.BusinessFunc {
	return func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		var in struct {
			SKU string `json:"sku"`
		}
		if err := json.Unmarshal(req.Body, &in); err != nil {
			return nil, err
		}
		if entered != nil {
			var pid int
			if err := tx.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				return nil, err
			}
			entered(in.SKU, pid)
		}
		if _, err := tx.Exec(ctx, "UPDATE public.stock SET qty = qty - 1 WHERE sku = $1", in.SKU); err != nil {
			return nil, err
		}
		var id int64
		if err := tx.QueryRow(ctx, "INSERT INTO public.orders (tenant, sku) VALUES ($1, $2) RETURNING id", op.Scope, in.SKU).Scan(&id); err != nil {
			return nil, err
		}
		return &idemimpl.Response{Status: http.StatusCreated, Header: http.Header{
			"Content-Type": {"application/json"}, "Location": {fmt.Sprintf("/orders/%d", id)}},
			Body: fmt.Appendf(nil, `{"order_id":%d,"sku":%q}`, id, in.SKU)}, nil
	}
}

// newShop builds one instance's createOrder handler on pool, with its
// idempotency tables in schema.ReleasedSchema.
func newShop(t *testing.T, pool *pgxpool.Pool, entered func(sku string, pid int)) http.Handler {
	t.Helper()
	return newShopLogging(t, pool, entered, nil)
}

// newShopLogging is newShop with the executor logging to log (nil: the
// default logger).
func newShopLogging(t *testing.T, pool *pgxpool.Pool, entered func(sku string, pid int), log *slog.Logger) http.Handler {
	t.Helper()
	return newShopConfig(t, entered, idem.Config{Pool: pool, Schema: schema.ReleasedSchema, Logger: log})
}

// newShopOn is newShop with the executor on protocol p.
func newShopOn(t *testing.T, pool *pgxpool.Pool, entered func(sku string, pid int), p idem.Protocol) http.Handler {
	t.Helper()
	return newShopConfig(t, entered, idem.Config{Pool: pool, Schema: schema.ReleasedSchema, Protocol: p})
}

// newShopConfig builds one instance's createOrder handler with cfg.
func newShopConfig(t *testing.T, entered func(sku string, pid int), cfg idem.Config) http.Handler {
	t.Helper()
	exec, err := idem.NewExecutor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tenant := func(r *http.Request) (string, error) { return r.Header.Get("X-Tenant"), nil }
	h, err := idemimpl.NewHandler(exec, orderContract(), tenant, createOrder(entered))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// order sends tenant's order of sku under key to h.
func order(h http.Handler, tenant, key, sku string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(fmt.Sprintf(`{"sku":%q}`, sku)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("X-Tenant", tenant)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// openPool opens a pool of at most maxConns connections on connString,
// closed when the test ends.
func openPool(t *testing.T, connString string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
