package shop

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// brokenEnv selects a defective Handlers for the contract tests of a child
// test process.
const brokenEnv = "IDEMGEN_EXAMPLE_BROKEN"

// insertsTwice is Service with a defect the contract tests must catch:
// every order is written twice.
type insertsTwice struct{ Service }

func (s insertsTwice) CreateOrder(ctx context.Context, tx pgx.Tx, op *CreateOrderOperation, req *CreateOrderRequest) (CreateOrderResponse, error) {
	res, err := s.Service.CreateOrder(ctx, tx, op, req)
	if err != nil {
		return nil, err
	}
	created, ok := res.(CreateOrder201Response)
	if !ok {
		return res, nil
	}
	_, err = tx.Exec(ctx, `INSERT INTO orders (id, tenant, shop_id, external_order_id, customer_id, delivery)
		SELECT gen_random_uuid(), tenant, shop_id, external_order_id || '-again', customer_id, delivery
		FROM orders WHERE id = $1`, created.Body.ID)
	return res, err
}

// TestContractTestsCatchBrokenService runs the generated contract tests of
// createOrder against insertsTwice, in a child process, and requires them
// to fail on the effect count: a test of the tests.
func TestContractTestsCatchBrokenService(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("in the child process")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestContractCreateOrder$", "-test.count=1")
	cmd.Env = append(os.Environ(), brokenEnv+"=inserts-twice")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the contract tests passed a service that writes every order twice:\n%s", out)
	}
	for _, want := range []string{"--- FAIL: TestContractCreateOrder/concurrent_duplicates_one_effect", "effects"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the failing run does not mention %q:\n%s", want, out)
		}
	}
}
