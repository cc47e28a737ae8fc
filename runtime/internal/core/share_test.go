package core_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// One scope cannot hold every connection: on a pool of 4, scope a runs
// at most 3 operations at once (the default share, all connections but
// one). While 3 of a's operations hold their connections, scope b's
// operation runs and completes; a 4th of a's waits at the gate and is
// refused with ErrScopeBusy at its acquire deadline, nothing of it run;
// once a's operations end, a runs again.
func TestAScopeCannotTakeEveryConnection(t *testing.T) {
	_, pool, cs := newConsumer(t, core.ProtocolAdvisory, 0)
	pool4 := openPoolWith(t, cs, 4)
	exec, err := core.New(core.Config{Pool: pool4, Protocol: core.ProtocolAdvisory, AcquireTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c := consumerOn(t, pool, core.ProtocolAdvisory, 0)
	c.exec = exec

	in, release := make(chan struct{}, 3), make(chan struct{})
	var calls atomic.Int32
	held := func(m message) core.Func {
		return func(ctx context.Context, tx pgx.Tx, op *core.Operation) (core.Decision, error) {
			in <- struct{}{}
			<-release
			return book(m, &calls)(ctx, tx, op)
		}
	}
	var wg sync.WaitGroup
	for i := range 3 {
		m := message{Source: "a", ID: fmt.Sprintf("a-%d", i), Body: []byte(`{}`)}
		wg.Go(func() {
			if _, err := c.handle(context.Background(), m, held(m)); err != nil {
				t.Errorf("a's held operation %s: %v", m.ID, err)
			}
		})
	}
	for range 3 {
		<-in // a's three operations hold three connections
	}

	b := message{Source: "b", ID: "b-1", Body: []byte(`{}`)}
	if res, err := c.handle(t.Context(), b, book(b, &calls)); err != nil || res.Replayed {
		t.Fatalf("b's operation while a holds its share: %+v, %v; want it run", res, err)
	}
	fourth := message{Source: "a", ID: "a-3", Body: []byte(`{}`)}
	var ref *core.RefusalError
	if _, err := c.handle(t.Context(), fourth, book(fourth, &calls)); !errors.Is(err, core.ErrScopeBusy) || !errors.As(err, &ref) || ref.RetryAfter <= 0 {
		t.Fatalf("a's fourth operation at once: %v, want ErrScopeBusy with a Retry-After", err)
	}
	close(release)
	wg.Wait()
	if res, err := c.handle(t.Context(), fourth, book(fourth, &calls)); err != nil || res.Replayed {
		t.Fatalf("a's fourth operation once a's others ended: %+v, %v; want it run (nothing of the refusal kept)", res, err)
	}
	if n := calls.Load(); n != 5 {
		t.Errorf("%d business runs, want 5 (a's three and fourth, b's one)", n)
	}
}

// openPoolWith is openPool with at most conns connections.
func openPoolWith(t *testing.T, cs string, conns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(cs)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = conns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
