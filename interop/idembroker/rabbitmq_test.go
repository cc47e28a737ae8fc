package idembroker_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idembroker"
	"github.com/idemgen/idemgen/runtime/idembroker/brokertest"
	"github.com/idemgen/idemgen/runtime/idembroker/rabbitmq"
)

// The RabbitMQ adapter passes the suite on the machine's server, a queue
// of each case's own. The server is shared, so the harness does not
// restart it.
func TestRabbitMQAdapter(t *testing.T) {
	url := rabbitMQURL(t)
	brokertest.Run(t, func(t *testing.T) brokertest.Harness { return newRabbitMQHarness(t, url) })
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

// queues numbers the harnesses' queues.
var queues atomic.Int64

// rabbitMQHarness publishes to and consumes one queue of its own.
type rabbitMQHarness struct {
	url   string
	queue string
	ch    *amqp.Channel
}

func newRabbitMQHarness(t *testing.T, url string) *rabbitMQHarness {
	h := &rabbitMQHarness{url: url, queue: fmt.Sprintf("idembroker-test-%d-%d", os.Getpid(), queues.Add(1))}
	h.ch = h.channel(t)
	if _, err := h.ch.QueueDeclare(h.queue, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := h.ch.QueueDelete(h.queue, false, false, false); err != nil {
			t.Errorf("deleting %s: %v", h.queue, err)
		}
	})
	return h
}

// channel opens a connection and a channel on it, closed when t ends.
func (h *rabbitMQHarness) channel(t testing.TB) *amqp.Channel {
	t.Helper()
	conn, err := amqp.Dial(h.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func (h *rabbitMQHarness) Features() brokertest.Features {
	return brokertest.Features{Ordered: true}
}

func (h *rabbitMQHarness) Source() string { return h.queue }

func (h *rabbitMQHarness) Publish(t testing.TB, m brokertest.Message) {
	t.Helper()
	if err := h.ch.PublishWithContext(t.Context(), "", h.queue, false, false,
		amqp.Publishing{MessageId: m.ID, Body: m.Body, DeliveryMode: amqp.Persistent}); err != nil {
		t.Fatal(err)
	}
}

func (h *rabbitMQHarness) Start(t testing.TB, d idembroker.Deliverer) *brokertest.Consumer {
	t.Helper()
	conn, err := amqp.Dial(h.url)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := conn.Channel()
	if err == nil {
		err = ch.Qos(10, 0, false)
	}
	if err != nil {
		t.Fatal(err)
	}
	return brokertest.Go(func(ctx context.Context) error {
		// Closing the connection waits for the server, which has then
		// taken the acks sent before.
		defer conn.Close()
		return rabbitmq.Run(ctx, rabbitmq.Config{Channel: ch, Queue: h.queue, Deliverer: d, RetryDelay: retryDelay,
			OnError: func(err error) { t.Log(err) }})
	}, func() { _ = conn.Close() })
}

func (h *rabbitMQHarness) RestartBroker(testing.TB) {}

func (h *rabbitMQHarness) Unacked(t testing.TB) int {
	t.Helper()
	q, err := h.ch.QueueDeclarePassive(h.queue, true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q.Messages
}
