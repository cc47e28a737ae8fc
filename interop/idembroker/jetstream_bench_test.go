package idembroker_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/runtime/idembroker"
	jsadapter "github.com/idemgen/idemgen/runtime/idembroker/jetstream"
)

// BenchmarkJetStreamInbox measures messages per second (ns/op is per
// message) consumed from a JetStream stream (file storage, an embedded
// server) into PostgreSQL by 16 consumers of one durable pull consumer,
// each message's business change one INSERT of a ledger row: a bare
// consumer (DoubleAck after its commit), the jetstream adapter through the
// inbox, and the adapter over processed messages (runPaths). Each path
// gets a stream of its own, published with b.N messages before the timer
// starts (use -benchtime Nx); runs of the test binary interleave the
// paths (docs/benchmarks.md).
func BenchmarkJetStreamInbox(b *testing.B) {
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
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	var streams atomic.Int64
	runPaths(b, func(b *testing.B, n int) benchFeed {
		return newJetStreamFeed(b, js, "BENCH"+strconv.FormatInt(streams.Add(1), 10), n)
	})
}

// jetStreamFeed is a stream of its own and its durable consumer.
type jetStreamFeed struct {
	stream string
	cons   jetstream.Consumer
}

// newJetStreamFeed creates stream, publishes n messages to it, and
// creates its durable consumer; the stream is deleted when b ends.
func newJetStreamFeed(b *testing.B, js jetstream.JetStream, stream string, n int) *jetStreamFeed {
	ctx := b.Context()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{stream},
		Storage: jetstream.FileStorage}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = js.DeleteStream(context.Background(), stream) })
	for i := range n {
		msg := nats.NewMsg(stream)
		msg.Header.Set(jsadapter.MsgIDHeader, strconv.Itoa(i))
		msg.Data = benchBody(i)
		if _, err := js.PublishMsgAsync(msg); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		b.Fatal("publishing: no acks after a minute")
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "bench",
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute, MaxDeliver: -1})
	if err != nil {
		b.Fatal(err)
	}
	return &jetStreamFeed{stream: stream, cons: pullLimited{cons}}
}

func (f *jetStreamFeed) source() string { return f.stream }

func (f *jetStreamFeed) consume(ctx context.Context, d idembroker.Deliverer, onError func(error)) error {
	return jsadapter.Run(ctx, jsadapter.Config{Consumer: f.cons, Deliverer: d, OnError: onError})
}

func (f *jetStreamFeed) consumeBare(ctx context.Context, apply func(ctx context.Context, source, id string, body []byte) error, done func()) error {
	it, err := f.cons.Messages()
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
		// As the adapter's, a delivery runs to its end.
		mctx := context.WithoutCancel(ctx)
		if err := apply(mctx, f.stream, msg.Headers().Get(jsadapter.MsgIDHeader), msg.Data()); err != nil {
			return err
		}
		done()
		if err := msg.DoubleAck(mctx); err != nil {
			return err
		}
	}
}

// pullLimited is a consumer whose Messages pulls at most benchPull
// messages ahead.
type pullLimited struct{ jetstream.Consumer }

func (c pullLimited) Messages(opts ...jetstream.PullMessagesOpt) (jetstream.MessagesContext, error) {
	return c.Consumer.Messages(append(opts, jetstream.PullMaxMessages(benchPull))...)
}
