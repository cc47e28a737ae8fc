package idembroker_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idembroker"
	"github.com/idemgen/idemgen/runtime/idembroker/brokertest"
	"github.com/idemgen/idemgen/runtime/idembroker/rabbitmq"
)

// The RabbitMQ adapter passes the suite on the server at RABBITMQ_URL, a
// durable queue of each case's own; with the long tag, the restart case
// restarts that server with rabbitmqctl (see rabbitMQCtl).
func TestRabbitMQAdapter(t *testing.T) {
	url := rabbitMQURL(t)
	ctl := newRabbitMQCtl(url)
	brokertest.Run(t, func(t *testing.T) brokertest.Harness { return newRabbitMQHarness(t, url, ctl) })
}

// rabbitMQURL returns RABBITMQ_URL, or skips tb saying how to start a
// server.
func rabbitMQURL(tb testing.TB) string {
	url := os.Getenv("RABBITMQ_URL")
	if url == "" {
		tb.Skip("RABBITMQ_URL is unset: start a server (rabbitmq-server -detached) and set " +
			"RABBITMQ_URL=amqp://guest:guest@127.0.0.1:5672/")
	}
	return url
}

// maxReconnectDelay bounds the adapter's wait between dials while the
// server restarts.
const maxReconnectDelay = 200 * time.Millisecond

// queues numbers the harnesses' queues.
var queues atomic.Int64

// rabbitMQHarness publishes to and consumes one durable queue of its own.
type rabbitMQHarness struct {
	t     testing.TB
	url   string
	queue string
	ctl   *rabbitMQCtl
	// noRestart says why the case may not restart the server, "" if it
	// may; decided once, when the case first asks for the Features.
	noRestart     string
	restartChecks sync.Once

	mu sync.Mutex
	ch *amqp.Channel // the harness's own channel, in confirm mode; opened again after a restart
}

func newRabbitMQHarness(t *testing.T, url string, ctl *rabbitMQCtl) *rabbitMQHarness {
	h := &rabbitMQHarness{url: url, queue: fmt.Sprintf("idembroker-test-%d-%d", os.Getpid(), queues.Add(1)), ctl: ctl}
	if err := h.declare(h.channel(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := h.channel(t).QueueDelete(h.queue, false, false, false); err != nil {
			t.Errorf("deleting %s: %v", h.queue, err)
		}
	})
	h.t = t
	return h
}

// declare declares the case's queue, durable, so that it and its
// persistent messages outlive a restart of the server.
func (h *rabbitMQHarness) declare(ch *amqp.Channel) error {
	_, err := ch.QueueDeclare(h.queue, true, false, false, false, nil)
	return err
}

// dial opens a connection named as this process's (rabbitMQCtl tells the
// server's other clients by it).
func (h *rabbitMQHarness) dial() (*amqp.Connection, error) {
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName(connectionName())
	return amqp.DialConfig(h.url, amqp.Config{Properties: props})
}

// channel returns the harness's channel, opening a connection and a
// channel in confirm mode if there is none or the server closed it (a
// restart); the connection is closed when t ends.
func (h *rabbitMQHarness) channel(t testing.TB) *amqp.Channel {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ch != nil && !h.ch.IsClosed() {
		return h.ch
	}
	conn, err := h.dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err == nil {
		err = ch.Confirm(false)
	}
	if err != nil {
		t.Fatal(err)
	}
	h.ch = ch
	return ch
}

func (h *rabbitMQHarness) Features() brokertest.Features {
	h.restartChecks.Do(func() { h.noRestart = h.ctl.cannotRestart(h.t) })
	return brokertest.Features{RestartBroker: h.noRestart == "", RestartRequeues: true, NoRestart: h.noRestart,
		Ordered: true}
}

func (h *rabbitMQHarness) Source() string { return h.queue }

// Publish publishes m persistent and waits for the server's confirm: the
// message is in the durable queue and survives a restart.
func (h *rabbitMQHarness) Publish(t testing.TB, m brokertest.Message) {
	t.Helper()
	dc, err := h.channel(t).PublishWithDeferredConfirmWithContext(t.Context(), "", h.queue, false, false,
		amqp.Publishing{MessageId: m.ID, Body: m.Body, DeliveryMode: amqp.Persistent})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := dc.WaitContext(t.Context()); err != nil || !ok {
		t.Fatalf("publishing %s: confirmed %v, %v", m.ID, ok, err)
	}
}

// Start runs the adapter on connections of its own. Its crash ends the
// adapter's context, so that it does not dial again, then closes its
// connection without an ack or a nack of what the connection holds.
func (h *rabbitMQHarness) Start(t testing.TB, d idembroker.Deliverer) *brokertest.Consumer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var conn *amqp.Connection
	dial := func() (*amqp.Connection, error) {
		c, err := h.dial()
		mu.Lock()
		defer mu.Unlock()
		if err == nil && ctx.Err() != nil {
			_ = c.Close()
			return nil, ctx.Err()
		}
		conn = c
		return c, err
	}
	kill := func() {
		cancel()
		mu.Lock()
		defer mu.Unlock()
		if conn != nil {
			_ = conn.Close()
		}
	}
	return brokertest.Go(func(stop context.Context) error {
		defer context.AfterFunc(stop, cancel)()
		return rabbitmq.Run(ctx, rabbitmq.Config{Dial: dial, Declare: h.declare, Queue: h.queue,
			Deliverer: d, RetryDelay: retryDelay, MaxReconnectDelay: maxReconnectDelay,
			OnError: func(err error) { t.Log(err) }})
	}, kill)
}

func (h *rabbitMQHarness) RestartBroker(t testing.TB) {
	t.Helper()
	h.ctl.restart(t)
}

// Unacked is the queue's ready messages: with no consumer connected, the
// server has requeued every delivery not acknowledged.
func (h *rabbitMQHarness) Unacked(t testing.TB) int {
	t.Helper()
	q, err := h.channel(t).QueueDeclarePassive(h.queue, true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q.Messages
}
