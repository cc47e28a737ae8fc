package inbox_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
)

// benchParallelism is the number of messages BenchmarkInbox has in
// flight, and its pool's size.
const benchParallelism = 16

// benchRedeliveries is how many processed messages path=duplicate cycles
// through.
const benchRedeliveries = 1024

// benchSeq numbers the benchmark's messages across its runs, so that
// every message of path=bare and path=inbox is new.
var benchSeq atomic.Int64

// BenchmarkInbox measures messages per second (ns/op is per message) on
// one database, with 16 in flight over a pool of 16 connections, each
// message the tests' settle (a ledger row and a settlement_email effect):
//
//   - path=bare: settle in a plain transaction of its own, no dedupe;
//   - path=inbox: a new message through Consumer.Deliver (the inbox read,
//     the message's lock, settle, the inbox row, one commit);
//   - path=duplicate: a redelivery of a processed message (one read).
//
// The paths run in turn in one process; runs of the test binary
// interleave them (docs/benchmarks.md).
func BenchmarkInbox(b *testing.B) {
	cs := newDB(b)
	pc, err := pgxpool.ParseConfig(cs)
	if err != nil {
		b.Fatal(err)
	}
	pc.MaxConns = benchParallelism
	pool, err := pgxpool.NewWithConfig(b.Context(), pc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	e, err := core.New(core.Config{Pool: pool})
	if err != nil {
		b.Fatal(err)
	}
	c, err := inbox.New(inbox.Config{Executor: e, Name: "settle", MaxAttempts: 3, Retention: 72 * time.Hour, Handler: settle})
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchRedeliveries {
		if _, err := c.Deliver(b.Context(), msg(fmt.Sprintf("dup-%d", i), `{"payment_id":"p"}`)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("path=bare", func(b *testing.B) {
		runParallel(b, func(ctx context.Context, _ int64) error {
			n := benchSeq.Add(1)
			m := msg(fmt.Sprintf("bare-%d", n), `{"payment_id":"p"}`)
			var id [16]byte // the operation id its effect carries, unique
			binary.BigEndian.PutUint64(id[8:], uint64(n))
			tx, err := pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if err := settle(ctx, tx, core.MessageOperation(e, "bare", m.Source, m.ID, id, ""), &m); err != nil {
				return err
			}
			return tx.Commit(ctx)
		})
	})
	b.Run("path=inbox", func(b *testing.B) {
		runParallel(b, func(ctx context.Context, _ int64) error {
			return deliverWant(ctx, c, msg(fmt.Sprintf("inbox-%d", benchSeq.Add(1)), `{"payment_id":"p"}`), inbox.Processed)
		})
	})
	b.Run("path=duplicate", func(b *testing.B) {
		runParallel(b, func(ctx context.Context, i int64) error {
			return deliverWant(ctx, c, msg(fmt.Sprintf("dup-%d", i%benchRedeliveries), `{"payment_id":"p"}`), inbox.Duplicate)
		})
	})
}

// deliverWant delivers m through c and fails unless the outcome is want.
func deliverWant(ctx context.Context, c *inbox.Consumer, m inbox.Message, want inbox.Outcome) error {
	r, err := c.Deliver(ctx, m)
	if err == nil && r.Outcome != want {
		err = fmt.Errorf("%s: %v, want %v", m.ID, r.Outcome, want)
	}
	return err
}

// runParallel runs deliver on benchParallelism goroutines (SetParallelism
// multiplies by GOMAXPROCS), i numbering the calls.
func runParallel(b *testing.B, deliver func(ctx context.Context, i int64) error) {
	b.Helper()
	b.SetParallelism(max(1, benchParallelism/runtime.GOMAXPROCS(0)))
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := deliver(b.Context(), next.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
