package idem_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ExampleNewExecutor wires the runtime into a service: migrate the
// idempotency tables, build the executor the generated Register takes, and
// apply retention.
func ExampleNewExecutor() {
	ctx := context.Background()
	pool, done := pgtest.ExamplePool() // a pool on a fresh database
	defer done()

	if err := idem.Migrate(ctx, pool, "idempotency"); err != nil {
		panic(err)
	}
	exec, err := idem.NewExecutor(idem.Config{
		Pool:   pool,
		Schema: "idempotency",
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		panic(err)
	}
	// A service now mounts its generated operations:
	//	err = shop.Register(mux, exec, shop.Service{}, tenantOf)

	// and starts maintenance, which applies retention every minute:
	//	go exec.Maintain(ctx, idem.MaintainOptions{})
	// Sweep is one pass of it:
	res, err := exec.Sweep(ctx, idem.MaintainOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("swept: %d tombstoned, %d deleted\n", res.Tombstoned, res.Deleted)
	// Output:
	// swept: 0 tombstoned, 0 deleted
}
