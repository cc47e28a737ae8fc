package idem_test

import (
	"context"
	"fmt"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ExampleExecutor_Status asks what became of an attempt, as a generated
// status route does: a key no attempt of the operation holds in the scope
// is unknown, whether no one sent it or another scope did.
func ExampleExecutor_Status() {
	ctx := context.Background()
	pool, done := pgtest.ExamplePool() // a pool on a fresh database
	defer done()
	if err := idem.Migrate(ctx, pool, ""); err != nil {
		panic(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		panic(err)
	}
	st, err := exec.Status(ctx, "createOrder", "tenant-a", `"8e03978e-40d5"`)
	if err != nil {
		panic(err)
	}
	fmt.Println(st.State, st.OperationID == "")
	_, err = exec.Status(ctx, "createOrder", "tenant-a", "")
	fmt.Println(err)
	// Output:
	// unknown true
	// idem: idempotency key malformed: empty
}
