package idem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperProcessEnv) != "" { // the child of TestKilledMidTransactionLeavesNothing
		os.Exit(helperProcess())
	}
	code := pgtest.Main(m)
	if code == 0 && os.Getenv(protocolEnv) == "" {
		code = runOnClaimFirst()
	}
	os.Exit(code)
}

// ordersDDL is the business table of the tests: one row per order.
const ordersDDL = `CREATE TABLE orders (
	id       bigserial PRIMARY KEY,
	tenant   text   NOT NULL,
	customer text   NOT NULL,
	amount   bigint NOT NULL
)`

// db is one test's database: a schema of its own with the store and the
// orders table, and its connection string for more pools.
type db struct {
	connString string
	pool       *pgxpool.Pool
}

func newDB(tb testing.TB) *db {
	tb.Helper()
	cs := pgtest.ConnString(tb)
	d := &db{connString: cs}
	d.pool = d.newPool(tb, 0)
	ctx := context.Background()
	if err := schema.Migrate(ctx, d.pool, ""); err != nil {
		tb.Fatal(err)
	}
	if _, err := d.pool.Exec(ctx, ordersDDL); err != nil {
		tb.Fatal(err)
	}
	return d
}

// newPool opens another pool on the test's schema; maxConns 0 keeps pgx's
// default, and configure adjusts the rest of the pool's configuration.
func (d *db) newPool(tb testing.TB, maxConns int32, configure ...func(*pgxpool.Config)) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(d.connString)
	if err != nil {
		tb.Fatal(err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	for _, f := range configure {
		f(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// count runs a counting query.
func (d *db) count(tb testing.TB, sql string, args ...any) int {
	tb.Helper()
	var n int
	if err := d.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// orderContract is createOrder's contract in the tests: customer, amount
// and items are significant, items compared as a multiset, note is not.
func orderContract() idemimpl.Contract {
	return idemimpl.Contract{
		Operation: "createOrder",
		Method:    http.MethodPost,
		Route:     "/orders",
		Fingerprint: fingerprint.Spec{
			Include:   []string{"/customer", "/amount", "/items"},
			Unordered: []string{"/items"},
		},
		ReplayHeaders: []string{"Location"},
	}
}

// tenantScope is the trusted scope of the tests: the X-Tenant header
// stands in for what authentication middleware would have established.
func tenantScope(r *http.Request) (string, error) {
	t := r.Header.Get("X-Tenant")
	if t == "" {
		return "", errors.New("no tenant")
	}
	return t, nil
}

type orderRequest struct {
	Customer string   `json:"customer"`
	Amount   int64    `json:"amount"`
	Items    []string `json:"items"`
	Note     string   `json:"note"`
}

// createOrder inserts an order and answers 201 with it; a negative amount
// is a 400 rejection after the insert (a stored failure must roll the
// insert back).
func createOrder(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
	in, id, err := insertOrder(ctx, tx, op, req)
	if err != nil {
		return nil, err
	}
	if in.Amount < 0 {
		return jsonResponse(http.StatusBadRequest, map[string]any{"error": "amount must not be negative"}), nil
	}
	resp := jsonResponse(http.StatusCreated, map[string]any{"order_id": id, "customer": in.Customer, "amount": in.Amount})
	resp.Header.Set("Location", fmt.Sprintf("/orders/%d", id))
	resp.Header.Set("X-Not-Replayed", "first-only")
	return resp, nil
}

// insertOrder decodes an order request and inserts its order row.
func insertOrder(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (in orderRequest, id int64, err error) {
	if err := json.Unmarshal(req.Body, &in); err != nil {
		return in, 0, err
	}
	err = tx.QueryRow(ctx, "INSERT INTO orders (tenant, customer, amount) VALUES ($1, $2, $3) RETURNING id",
		op.Scope, in.Customer, in.Amount).Scan(&id)
	return in, id, err
}

func jsonResponse(status int, v any) *idemimpl.Response {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return &idemimpl.Response{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

// newHandler builds createOrder's handler on pool with cfg's clock and
// observer.
func newHandler(tb testing.TB, pool *pgxpool.Pool, c idemimpl.Contract, cfg idem.Config, fn idemimpl.BusinessFunc) http.Handler {
	tb.Helper()
	return newHandlerWithFaults(tb, pool, c, cfg, faults.Hooks{}, fn)
}

// newHandlerWithFaults is newHandler with fault hooks in the executor.
func newHandlerWithFaults(tb testing.TB, pool *pgxpool.Pool, c idemimpl.Contract, cfg idem.Config, hooks faults.Hooks, fn idemimpl.BusinessFunc) http.Handler {
	tb.Helper()
	cfg.Pool = pool
	if cfg.Protocol == idem.ProtocolAuto {
		cfg.Protocol = testProtocol()
	}
	exec, err := idem.NewExecutor(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	core.InstallFaults(exec, hooks)
	h, err := idemimpl.NewHandler(exec, c, tenantScope, fn)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// post sends an order request for tenant with key (as written).
func post(h http.Handler, tenant, key string, body string) idemtest.Response {
	req := idemtest.NewRequest(http.MethodPost, "/orders", key, []byte(body))
	if tenant != "" {
		req.Header.Set("X-Tenant", tenant)
	}
	return idemtest.Serve(h, req)
}

// problemType decodes a problem+json body's type.
func problemType(tb testing.TB, r idemtest.Response) string {
	tb.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
		tb.Fatalf("Content-Type %q, want application/problem+json (status %d, body %s)", ct, r.Status, r.Body)
	}
	var p struct {
		Type   string `json:"type"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal(r.Body, &p); err != nil {
		tb.Fatal(err)
	}
	if p.Status != r.Status {
		tb.Errorf("problem status %d, response status %d", p.Status, r.Status)
	}
	return p.Type
}
