package idembroker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker"
	"github.com/idemgen/idemgen/runtime/idembroker/brokertest"
	jsadapter "github.com/idemgen/idemgen/runtime/idembroker/jetstream"
)

// The JetStream adapter passes the suite on an embedded NATS server
// storing its streams in files, which the harness restarts.
func TestJetStreamAdapter(t *testing.T) {
	brokertest.Run(t, newJetStreamHarness)
}

// jetStreamHarness runs a NATS server of its own with the stream EVENTS
// and its durable pull consumer "idem".
type jetStreamHarness struct {
	opts *server.Options
	srv  *server.Server
	nc   *nats.Conn
	js   jetstream.JetStream
}

// The stream, its subject and its consumer.
const (
	jsStream   = "EVENTS"
	jsSubject  = "events"
	jsDurable  = "idem"
	jsAckWait  = 2 * time.Second // a crashed consumer's message returns after it
	retryDelay = 50 * time.Millisecond
)

func newJetStreamHarness(t *testing.T) brokertest.Harness {
	h := &jetStreamHarness{opts: &server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true}}
	h.start(t)
	t.Cleanup(func() { h.srv.Shutdown(); h.srv.WaitForShutdown() })
	h.nc, h.js = h.connect(t)
	ctx := t.Context()
	if _, err := h.js.CreateStream(ctx, jetstream.StreamConfig{Name: jsStream, Subjects: []string{jsSubject},
		Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.js.CreateOrUpdateConsumer(ctx, jsStream, jetstream.ConsumerConfig{Durable: jsDurable,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: jsAckWait, MaxDeliver: -1}); err != nil {
		t.Fatal(err)
	}
	return h
}

// start starts the server on opts, on the port it had before if any.
func (h *jetStreamHarness) start(t testing.TB) {
	t.Helper()
	srv, err := server.NewServer(h.opts)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(time.Minute) {
		t.Fatal("the NATS server did not start")
	}
	h.srv = srv
	h.opts.Port = srv.Addr().(*net.TCPAddr).Port
}

// connect opens a connection that reconnects for ever.
func (h *jetStreamHarness) connect(t testing.TB) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(h.srv.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

func (h *jetStreamHarness) Features() brokertest.Features {
	return brokertest.Features{RestartBroker: true, Ordered: true, DedupesPublish: true}
}

func (h *jetStreamHarness) Source() string { return jsStream }

func (h *jetStreamHarness) Publish(t testing.TB, m brokertest.Message) {
	t.Helper()
	msg := nats.NewMsg(jsSubject)
	msg.Header.Set(jsadapter.MsgIDHeader, m.ID)
	msg.Data = m.Body
	// Retried while the connection comes back after a restart; the
	// Nats-Msg-Id makes a retried publish land once.
	var err error
	for range 100 {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		_, err = h.js.PublishMsg(ctx, msg)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("publishing %s: %v", m.ID, err)
}

func (h *jetStreamHarness) Start(t testing.TB, d idembroker.Deliverer) *brokertest.Consumer {
	t.Helper()
	nc, js := h.connect(t)
	cons, err := js.Consumer(t.Context(), jsStream, jsDurable)
	if err != nil {
		t.Fatal(err)
	}
	return brokertest.Go(func(ctx context.Context) error {
		return jsadapter.Run(ctx, jsadapter.Config{Consumer: cons, Deliverer: d, RetryDelay: retryDelay,
			OnError: func(err error) { t.Log(err) }})
	}, nc.Close)
}

func (h *jetStreamHarness) RestartBroker(t testing.TB) {
	t.Helper()
	h.srv.Shutdown()
	h.srv.WaitForShutdown()
	h.start(t)
}

func (h *jetStreamHarness) Unacked(t testing.TB) int {
	t.Helper()
	cons, err := h.js.Consumer(t.Context(), jsStream, jsDurable)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return int(info.NumPending) + info.NumAckPending
}

// A message whose id the consumer refuses is terminated with the reason,
// which the server's MSG_TERMINATED advisory carries to whoever handles
// dead messages: what was wrong (the header), never the id itself. The
// Deliverer stands for the inbox's refusal of the id, with its error (the
// suite's UnusableID case has the real inbox refuse such ids).
func TestJetStreamTerminatesAnUnusableIDWithTheReason(t *testing.T) {
	h := newJetStreamHarness(t).(*jetStreamHarness)
	advisories := make(chan *nats.Msg, 1)
	sub, err := h.nc.ChanSubscribe(server.JSAdvisoryConsumerMsgTerminatedPre+"."+jsStream+"."+jsDurable, advisories)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	if err := h.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	const id = "secret\x01id"
	h.Publish(t, brokertest.Message{ID: id, Body: []byte(`{}`)})
	// As the inbox refuses it (inbox.Consumer.Deliver, idemkey.Check).
	refusal := fmt.Errorf("%w: idem: idempotency key malformed: the message id holds the control character U+0001 at byte 6", idem.ErrInvalidMessage)
	c := h.Start(t, refuser{err: refusal})
	defer func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	}()
	var adv server.JSConsumerDeliveryTerminatedAdvisory
	select {
	case m := <-advisories:
		if err := json.Unmarshal(m.Data, &adv); err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("no MSG_TERMINATED advisory within a minute")
	}
	if !strings.Contains(adv.Reason, jsadapter.MsgIDHeader) || !strings.Contains(adv.Reason, "control character U+0001") {
		t.Errorf("advisory reason %q: want the header and what is wrong with its value", adv.Reason)
	}
	if strings.Contains(adv.Reason, "secret") {
		t.Errorf("advisory reason %q holds the message id", adv.Reason)
	}
	if adv.Deliveries != 1 {
		t.Errorf("terminated after %d deliveries, want 1", adv.Deliveries)
	}
}

// refuser is a Deliverer that refuses every message with err.
type refuser struct{ err error }

func (r refuser) Deliver(context.Context, idem.Message) (idem.DeliveryResult, error) {
	return idem.DeliveryResult{}, r.err
}
