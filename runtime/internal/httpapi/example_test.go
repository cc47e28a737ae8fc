package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ExampleNewHandler serves createOrder idempotently on the raw-body path:
// the first request runs, its retry is replayed, the same key with a
// different order is a 422, and a request without a key is a 400.
func ExampleNewHandler() {
	ctx := context.Background()
	pool, done := pgtest.ExamplePool() // a pool on a fresh schema
	defer done()

	if err := idem.Migrate(ctx, pool, ""); err != nil {
		panic(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE orders (id bigserial PRIMARY KEY, tenant text, sku text)`); err != nil {
		panic(err)
	}

	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		panic(err)
	}
	contract := httpapi.Contract{
		Operation:   "createOrder",
		Method:      http.MethodPost,
		Route:       "/orders",
		Key:         httpapi.KeySpec{Header: "Idempotency-Key"},
		Fingerprint: fingerprint.Spec{Include: []string{"/sku"}},
	}
	tenant := func(r *http.Request) (string, error) { return "tenant-1", nil } // from authentication
	create := func(ctx context.Context, tx pgx.Tx, op *core.Operation, req *httpapi.Request) (*httpapi.Response, error) {
		var in struct{ SKU string }
		if err := json.Unmarshal(req.Body, &in); err != nil {
			return nil, err
		}
		var id int64
		err := tx.QueryRow(ctx, `INSERT INTO orders (tenant, sku) VALUES ($1, $2) RETURNING id`, op.Scope, in.SKU).Scan(&id)
		if err != nil {
			return nil, err
		}
		body := fmt.Sprintf(`{"order_id":%d,"sku":%q}`, id, in.SKU)
		return &httpapi.Response{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}, nil
	}
	h, err := httpapi.NewHandler(exec, contract, tenant, nil, create)
	if err != nil {
		panic(err)
	}

	send := func(key, body string) {
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(body))
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Header().Get("Idempotent-Replayed"), strings.TrimSpace(rec.Body.String()))
	}
	send(`"8e03978e"`, `{"sku":"book"}`)
	send(`8e03978e`, `{"sku":"book"}`)
	send(`"8e03978e"`, `{"sku":"lamp"}`)
	send(``, `{"sku":"book"}`)
	// Output:
	// 201  {"order_id":1,"sku":"book"}
	// 201 true {"order_id":1,"sku":"book"}
	// 422  {"type":"https://github.com/idemgen/idemgen/blob/main/docs/problems.md#idempotency-key-reused","title":"Idempotency key reused","status":422,"detail":"This idempotency key was already used for a different request. Use a new key for a new request."}
	// 400  {"type":"https://github.com/idemgen/idemgen/blob/main/docs/problems.md#idempotency-key-missing","title":"Idempotency key missing","status":400,"detail":"This operation requires an idempotency key."}
}
