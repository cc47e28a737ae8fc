package shop

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// orderNumbers hands out the shop's order numbers, so every new order of
// the tests has a natural key of its own.
var orderNumbers atomic.Int64

// newContractFixture gives the generated contract tests the shop: its
// tables in a schema of the test's own, valid requests, and how to count
// each operation's business effect.
func newContractFixture(t *testing.T) *contractFixture {
	cs := pgtest.ConnString(t)
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), SchemaSQL); err != nil {
		t.Fatal(err)
	}
	return &contractFixture{
		Handlers:   service(t),
		ConnString: cs,
		CreateOrder: idemtest.Fixture[CreateOrderRequest]{
			Request: func(string) *CreateOrderRequest { return &CreateOrderRequest{Body: newOrder()} },
			Effects: countRows("SELECT count(*) FROM orders WHERE tenant = $1"),
		},
		CancelOrder: idemtest.Fixture[CancelOrderRequest]{
			Request: func(scope string) *CancelOrderRequest {
				return &CancelOrderRequest{OrderID: placeOrder(t, pool, scope), Body: &Cancellation{Reason: CancellationReasonCustomerRequest}}
			},
			Effects: countRows("SELECT count(*) FROM orders WHERE tenant = $1 AND status = 'cancelled'"),
		},
	}
}

// service is the implementation under test: Service, or one broken on
// purpose when IDEMGEN_EXAMPLE_BROKEN names a defect (see
// TestContractTestsCatchBrokenService).
func service(t *testing.T) Handlers {
	switch os.Getenv(brokenEnv) {
	case "":
		return Service{}
	case "inserts-twice":
		return insertsTwice{}
	}
	t.Fatalf("%s=%q: unknown defect", brokenEnv, os.Getenv(brokenEnv))
	return nil
}

func newOrder() *NewOrder {
	return &NewOrder{
		ShopID:          "shop-1",
		ExternalOrderID: fmt.Sprintf("A-%d", orderNumbers.Add(1)),
		CustomerID:      "customer-42",
		Items:           []OrderItem{{Sku: "SKU-1", Quantity: 2}, {Sku: "SKU-2", Quantity: 1}},
		Delivery:        Delivery{Name: "Ann", Street: "1 Main St", City: "Oslo", PostalCode: "0150", Country: "NO"},
	}
}

// placeOrder puts a pending order of tenant straight into the database,
// for the operations that act on an existing order.
func placeOrder(t *testing.T, pool *pgxpool.Pool, tenant string) string {
	var id string
	err := pool.QueryRow(t.Context(), `INSERT INTO orders (id, tenant, shop_id, external_order_id, customer_id, delivery)
		VALUES (gen_random_uuid(), $1, 'shop-1', $2, 'customer-42', '{}') RETURNING id::text`,
		tenant, fmt.Sprintf("B-%d", orderNumbers.Add(1))).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func countRows(sql string) func(context.Context, *pgxpool.Pool, string) (int, error) {
	return func(ctx context.Context, pool *pgxpool.Pool, scope string) (int, error) {
		var n int
		err := pool.QueryRow(ctx, sql, scope).Scan(&n)
		return n, err
	}
}
