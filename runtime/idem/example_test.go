package idem_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ExampleNewExecutor wires the runtime into a service: migrate the
// idempotency tables, build the executor the generated Register takes, and
// apply retention.
func ExampleNewExecutor() {
	ctx := context.Background()
	pool, done := exampleDatabase() // a pool on a fresh database
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

// exampleTB lets an Example use pgtest, which wants a testing.TB: it
// names the database, fails by panicking and runs cleanups when done.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (*exampleTB) Helper()                           {}
func (*exampleTB) Name() string                      { return "Example" }
func (*exampleTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (*exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (tb *exampleTB) Cleanup(f func())               { tb.cleanups = append(tb.cleanups, f) }

// exampleDatabase opens a pool on a fresh database of pgtest's server and
// returns it with the function that closes it and drops the database.
func exampleDatabase() (*pgxpool.Pool, func()) {
	tb := &exampleTB{}
	pool, err := pgxpool.New(context.Background(), pgtest.Database(tb))
	if err != nil {
		panic(err)
	}
	tb.Cleanup(pool.Close)
	return pool, func() {
		for i := len(tb.cleanups) - 1; i >= 0; i-- {
			tb.cleanups[i]()
		}
	}
}
