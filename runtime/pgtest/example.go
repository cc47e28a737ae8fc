package pgtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ExampleDatabase is Database for an Example function, which has no
// testing.TB: it returns the connection string of a database of its own
// and the function that drops it (call it when the example ends). It
// panics where Database would fail a test.
func ExampleDatabase() (connString string, drop func()) {
	tb := &exampleTB{}
	return Database(tb), tb.cleanup
}

// ExamplePool opens a connection pool on an ExampleDatabase and returns it
// with the function that closes it and drops the database.
func ExamplePool() (*pgxpool.Pool, func()) {
	cs, drop := ExampleDatabase()
	pool, err := pgxpool.New(context.Background(), cs)
	if err != nil {
		drop()
		panic(err)
	}
	return pool, func() {
		pool.Close()
		drop()
	}
}

// exampleTB is the testing.TB of an Example: it names the database,
// fails by panicking and keeps the cleanups for drop.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (*exampleTB) Helper()                           {}
func (*exampleTB) Name() string                      { return "Example" }
func (*exampleTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (*exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (tb *exampleTB) Cleanup(f func())               { tb.cleanups = append(tb.cleanups, f) }

// cleanup runs the cleanups, last first.
func (tb *exampleTB) cleanup() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}
