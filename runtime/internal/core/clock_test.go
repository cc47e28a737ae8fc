package core_test

import (
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/core"
)

// An operation in progress after a checkpoint is taken over only once its
// lease has run out on the database's clock, and its retention is the
// database's too: a retry by an executor whose clock runs 73 hours ahead,
// for which both have long ended, is refused as in progress while the
// lease runs; once it has run out there, a retry by an executor 40 days
// behind takes the operation over and finishes it. Every retry then
// replays it, and the bank acted once.
func TestTakeoverGoesByTheDatabasesLease(t *testing.T) {
	protocols(t, func(t *testing.T, p core.Protocol) {
		c, pool, _ := newConsumer(t, p, time.Minute)
		ahead, behind := skewedConsumer(t, pool, p, c, 73*time.Hour), skewedConsumer(t, pool, p, c, -40*24*time.Hour)
		b := newBank()
		b.fail.Store(true)
		m := paymentMessage()
		if _, err := c.handle(t.Context(), m, paymentSteps(m, b, false)); err == nil {
			t.Fatal("the call with a lost answer: no error")
		}
		// That attempt gave its lease up; as if it still ran, the lease runs
		// another hour on the database's clock.
		setLease(t, pool, "now() + interval '1 hour'")
		if _, err := ahead.handle(t.Context(), m, paymentSteps(m, b, false)); !errors.Is(err, core.ErrInProgress) {
			t.Fatalf("a retry 73h ahead while the lease runs: %v, want in progress", err)
		}
		setLease(t, pool, "now() - interval '1 second'")
		res, err := behind.handle(t.Context(), m, paymentSteps(m, b, false))
		if err != nil || !res.Stored {
			t.Fatalf("a retry 40 days behind once the lease ran out: %+v, %v; want the operation taken over and finished", res, err)
		}
		for i, h := range []*consumer{c, ahead, behind} {
			again, err := h.handle(t.Context(), m, paymentSteps(m, b, false))
			if err != nil || !again.Replayed || again.OperationID != res.OperationID {
				t.Errorf("retry %d after the end: %+v, %v; want a replay of %s", i, again, err, res.OperationID)
			}
		}
		checkOncePerKey(t, b, 1)
	})
}

// skewedConsumer is c's policy on an executor of its own, under protocol,
// whose clock is off by skew.
func skewedConsumer(t *testing.T, pool *pgxpool.Pool, protocol core.Protocol, c *consumer, skew time.Duration) *consumer {
	t.Helper()
	exec, err := core.New(core.Config{Pool: pool, Protocol: protocol, Clock: idemtest.SkewedClock(skew)})
	if err != nil {
		t.Fatal(err)
	}
	return &consumer{exec: exec, policy: c.policy}
}

// setLease sets the lease of every operation in progress to until, an SQL
// expression on the database's clock.
func setLease(t *testing.T, pool *pgxpool.Pool, until string) {
	t.Helper()
	if _, err := pool.Exec(t.Context(), "UPDATE idempotency_progress SET lease_until = "+until); err != nil {
		t.Fatal(err)
	}
}
