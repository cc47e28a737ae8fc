package idembroker_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// benchWorkers is the number of consumers each path runs at once on one
// subscription, and the size of their connection pool.
const benchWorkers = 16

// benchPull bounds the messages each consumer holds ahead (JetStream's
// pull batch, RabbitMQ's prefetch), so that the messages spread over all
// of them to the end.
const benchPull = 16

// benchFeed is one sub-benchmark run's stream or queue on a broker,
// published with the run's messages before the timer starts.
type benchFeed interface {
	// source is the source the adapter delivers the messages under.
	source() string
	// consume runs the broker's adapter into d until ctx ends.
	consume(ctx context.Context, d idembroker.Deliverer, onError func(error)) error
	// consumeBare runs a consumer without dedupe until ctx ends: it
	// commits each message's change with apply in a transaction of its
	// own, calls done, and acknowledges the message as the adapter does.
	consumeBare(ctx context.Context, apply func(ctx context.Context, source, id string, body []byte) error, done func()) error
}

// benchBody is the body of the benchmark's message i.
func benchBody(i int) []byte {
	return fmt.Appendf(nil, `{"type":"payment.settled","payment_id":"pay-%d"}`, i)
}

// brokerBench is a benchmark's database and idempotent consumer, shared by
// its paths.
type brokerBench struct {
	pool     *pgxpool.Pool
	consumer *idem.Consumer
}

// runPaths runs the three paths in turn, each on a feed of its own that
// newFeed publishes with b.N messages (ids 0 to b.N-1, bodies benchBody):
//
//   - path=bare: the broker's bare consumer (benchFeed.consumeBare),
//     committing each message's ledger row, no dedupe;
//   - path=inbox: the broker's adapter into an idem.Consumer whose handler
//     commits the same row;
//   - path=duplicate: the adapter over messages the inbox processed
//     before the timer started (each answered Duplicate and acked).
func runPaths(b *testing.B, newFeed func(b *testing.B, n int) benchFeed) {
	bb := newBrokerBench(b)
	b.Run("path=bare", func(b *testing.B) { bb.run(b, newFeed, "bare") })
	b.Run("path=inbox", func(b *testing.B) { bb.run(b, newFeed, "inbox") })
	b.Run("path=duplicate", func(b *testing.B) { bb.run(b, newFeed, "duplicate") })
}

func newBrokerBench(b *testing.B) *brokerBench {
	pc, err := pgxpool.ParseConfig(pgtest.ConnString(b))
	if err != nil {
		b.Fatal(err)
	}
	pc.MaxConns = benchWorkers
	bb := &brokerBench{}
	if bb.pool, err = pgxpool.NewWithConfig(b.Context(), pc); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(bb.pool.Close)
	ctx := b.Context()
	if err := idem.Migrate(ctx, bb.pool, ""); err != nil {
		b.Fatal(err)
	}
	if _, err := bb.pool.Exec(ctx, `CREATE TABLE ledger (seq bigserial PRIMARY KEY, source text NOT NULL,
		message_id text NOT NULL, body jsonb NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: bb.pool})
	if err != nil {
		b.Fatal(err)
	}
	bb.consumer, err = idem.NewConsumer(exec, idem.ConsumerConfig{Name: "ledger", MaxAttempts: 3,
		Retention: time.Hour, Handler: func(ctx context.Context, tx pgx.Tx, d *idem.Delivery) error {
			return applyLedger(ctx, tx, d.Message.Source, d.Message.ID, d.Message.Body)
		}})
	if err != nil {
		b.Fatal(err)
	}
	return bb
}

// applyLedger is the business change of every path.
func applyLedger(ctx context.Context, tx pgx.Tx, source, id string, body []byte) error {
	_, err := tx.Exec(ctx, `INSERT INTO ledger (source, message_id, body) VALUES ($1, $2, $3)`, source, id, body)
	return err
}

// run times one path over a new feed of b.N messages on benchWorkers
// consumers, until the last message's delivery returned (its ack in
// flight, the same boundary on every path), and asserts that the feed's
// messages each left one ledger row.
func (bb *brokerBench) run(b *testing.B, newFeed func(b *testing.B, n int) benchFeed, path string) {
	ctx := b.Context()
	feed := newFeed(b, b.N)
	if path == "duplicate" {
		for i := range b.N {
			if _, err := bb.consumer.Deliver(ctx, idem.Message{Source: feed.source(), ID: strconv.Itoa(i), Body: benchBody(i)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	var count atomic.Int64
	all := make(chan struct{})
	done := func() {
		if count.Add(1) == int64(b.N) {
			close(all)
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, benchWorkers)
	var wg sync.WaitGroup
	b.ResetTimer()
	for range benchWorkers {
		wg.Go(func() {
			if path == "bare" {
				errs <- feed.consumeBare(runCtx, func(ctx context.Context, source, id string, body []byte) error {
					return pgx.BeginFunc(ctx, bb.pool, func(tx pgx.Tx) error { return applyLedger(ctx, tx, source, id, body) })
				}, done)
				return
			}
			errs <- bb.consumeAdapter(runCtx, feed, path, done)
		})
	}
	select {
	case <-all:
	case err := <-errs:
		b.Fatalf("a consumer stopped early: %v", err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	var rows, ids int
	if err := bb.pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT message_id) FROM ledger WHERE source = $1`,
		feed.source()).Scan(&rows, &ids); err != nil {
		b.Fatal(err)
	}
	if rows != b.N || ids != b.N {
		b.Fatalf("%d ledger rows for %d messages, want %d of each", rows, ids, b.N)
	}
}

// consumeAdapter runs feed's adapter into the benchmark's consumer until
// ctx ends, calling done after each delivery; an outcome other than the
// path's (Processed, or Duplicate) or an error while ctx lasts fails it.
func (bb *brokerBench) consumeAdapter(ctx context.Context, feed benchFeed, path string, done func()) error {
	want := idem.MessageProcessed
	if path == "duplicate" {
		want = idem.MessageDuplicate
	}
	var mu sync.Mutex
	var failed error
	fail := func(err error) {
		if ctx.Err() == nil {
			mu.Lock()
			failed = errors.Join(failed, err)
			mu.Unlock()
		}
	}
	d := deliverFunc(func(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
		r, err := bb.consumer.Deliver(ctx, m)
		if err == nil && r.Outcome != want {
			err = fmt.Errorf("message %s: %v, want %v", m.ID, r.Outcome, want)
		}
		if err != nil {
			fail(err)
			return r, err
		}
		done()
		return r, nil
	})
	err := feed.consume(ctx, d, fail)
	mu.Lock()
	defer mu.Unlock()
	return errors.Join(err, failed)
}

// deliverFunc is a function as an idembroker.Deliverer.
type deliverFunc func(ctx context.Context, m idem.Message) (idem.DeliveryResult, error)

func (f deliverFunc) Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
	return f(ctx, m)
}
