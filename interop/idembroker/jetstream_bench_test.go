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
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/runtime/idem"
	jsadapter "github.com/idemgen/idemgen/runtime/idembroker/jetstream"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// benchWorkers is the number of consumers each path runs at once on the
// stream's one durable consumer, and the size of their connection pool.
const benchWorkers = 16

// benchPull bounds the messages each consumer pulls ahead, so that the
// stream spreads over all of them to its end.
const benchPull = 16

// BenchmarkJetStreamInbox measures messages per second (ns/op is per
// message) consumed from a JetStream stream into PostgreSQL by 16
// consumers of one durable pull consumer, each message's business change
// one INSERT of a ledger row:
//
//   - path=bare: a plain consumer that commits the change in a
//     transaction of its own and acknowledges (DoubleAck), no dedupe;
//   - path=inbox: the jetstream adapter (jetstream.Run) through an
//     idem.Consumer whose handler makes the same change;
//   - path=duplicate: the same, over messages the inbox has processed
//     (a second durable consumer on a stream already consumed).
//
// Each path gets a stream of its own, published with b.N messages before
// the timer starts (use -benchtime Nx); the timer stops when the last
// message's delivery returned, its ack in flight. The three paths run in
// turn on one NATS server and one database; runs of the test binary
// interleave them (docs/benchmarks.md).
func BenchmarkJetStreamInbox(b *testing.B) {
	bb := newJetStreamBench(b)
	b.Run("path=bare", func(b *testing.B) { bb.run(b, bb.bare, false) })
	b.Run("path=inbox", func(b *testing.B) { bb.run(b, bb.inbox(idem.MessageProcessed), false) })
	b.Run("path=duplicate", func(b *testing.B) { bb.run(b, bb.inbox(idem.MessageDuplicate), true) })
}

// jetStreamBench is the benchmark's NATS server, database and consumer.
type jetStreamBench struct {
	js       jetstream.JetStream
	pool     *pgxpool.Pool
	consumer *idem.Consumer
	streams  atomic.Int64
}

// worker consumes cons until ctx ends, calling done after each message's
// change committed (or was found done).
type worker func(ctx context.Context, cons jetstream.Consumer, done func()) error

func newJetStreamBench(b *testing.B) *jetStreamBench {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: b.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		b.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(time.Minute) {
		b.Fatal("the NATS server did not start")
	}
	b.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	bb := &jetStreamBench{}
	if bb.js, err = jetstream.New(nc); err != nil {
		b.Fatal(err)
	}
	pc, err := pgxpool.ParseConfig(pgtest.ConnString(b))
	if err != nil {
		b.Fatal(err)
	}
	pc.MaxConns = benchWorkers
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

// run publishes b.N messages to a new stream, then times w consuming them
// on benchWorkers goroutines. processed says the inbox has processed the
// messages before the timer starts. It asserts that the stream's messages
// each left one ledger row.
func (bb *jetStreamBench) run(b *testing.B, w worker, processed bool) {
	ctx := b.Context()
	stream := "BENCH" + strconv.FormatInt(bb.streams.Add(1), 10)
	if _, err := bb.js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{stream},
		Storage: jetstream.FileStorage}); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = bb.js.DeleteStream(context.WithoutCancel(ctx), stream) }()
	for i := range b.N {
		msg := nats.NewMsg(stream)
		msg.Header.Set(jsadapter.MsgIDHeader, strconv.Itoa(i))
		msg.Data = fmt.Appendf(nil, `{"type":"payment.settled","payment_id":"pay-%d"}`, i)
		if _, err := bb.js.PublishMsgAsync(msg); err != nil {
			b.Fatal(err)
		}
		if processed {
			if _, err := bb.consumer.Deliver(ctx, idem.Message{Source: stream, ID: strconv.Itoa(i), Body: msg.Data}); err != nil {
				b.Fatal(err)
			}
		}
	}
	select {
	case <-bb.js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		b.Fatal("publishing: no acks after a minute")
	}
	cons, err := bb.js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "bench",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute, MaxDeliver: -1})
	if err != nil {
		b.Fatal(err)
	}
	cons = pullLimited{cons}

	var count atomic.Int64
	all := make(chan struct{})
	done := func() {
		if count.Add(1) == int64(b.N) {
			close(all)
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	errs := make(chan error, benchWorkers)
	var wg sync.WaitGroup
	b.ResetTimer()
	for range benchWorkers {
		wg.Go(func() { errs <- w(runCtx, cons, done) })
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
		stream).Scan(&rows, &ids); err != nil {
		b.Fatal(err)
	}
	if rows != b.N || ids != b.N {
		b.Fatalf("%d ledger rows for %d messages, want %d of each", rows, ids, b.N)
	}
}

// inbox returns the worker running the jetstream adapter into the
// benchmark's consumer, failing on an outcome other than want.
func (bb *jetStreamBench) inbox(want idem.MessageOutcome) worker {
	return func(ctx context.Context, cons jetstream.Consumer, done func()) error {
		var failed error
		var once sync.Once
		d := deliverFunc(func(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
			r, err := bb.consumer.Deliver(ctx, m)
			if err == nil && r.Outcome != want {
				err = fmt.Errorf("message %s: %v, want %v", m.ID, r.Outcome, want)
			}
			if err != nil {
				once.Do(func() { failed = err })
				return r, err
			}
			done()
			return r, nil
		})
		err := jsadapter.Run(ctx, jsadapter.Config{Consumer: cons, Deliverer: d,
			OnError: func(err error) { once.Do(func() { failed = err }) }})
		return errors.Join(err, failed)
	}
}

// bare is the worker without dedupe: it commits each message's change in
// a transaction of its own and acknowledges it as the adapter does.
func (bb *jetStreamBench) bare(ctx context.Context, cons jetstream.Consumer, done func()) error {
	it, err := cons.Messages()
	if err != nil {
		return err
	}
	defer it.Stop()
	for {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		meta, err := msg.Metadata()
		if err != nil {
			return err
		}
		// As the adapter's, a delivery runs to its end.
		mctx := context.WithoutCancel(ctx)
		if err := pgx.BeginFunc(mctx, bb.pool, func(tx pgx.Tx) error {
			return applyLedger(mctx, tx, meta.Stream, msg.Headers().Get(jsadapter.MsgIDHeader), msg.Data())
		}); err != nil {
			return err
		}
		done()
		if err := msg.DoubleAck(mctx); err != nil {
			return err
		}
	}
}

// deliverFunc is a function as an idembroker.Deliverer.
type deliverFunc func(ctx context.Context, m idem.Message) (idem.DeliveryResult, error)

func (f deliverFunc) Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
	return f(ctx, m)
}

// pullLimited is a consumer whose Messages pulls at most benchPull
// messages ahead.
type pullLimited struct{ jetstream.Consumer }

func (c pullLimited) Messages(opts ...jetstream.PullMessagesOpt) (jetstream.MessagesContext, error) {
	return c.Consumer.Messages(append(opts, jetstream.PullMaxMessages(benchPull))...)
}
