package idembroker_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idembroker"
	"github.com/idemgen/idemgen/runtime/idembroker/rabbitmq"
)

// BenchmarkRabbitMQInbox is BenchmarkJetStreamInbox on the machine's
// RabbitMQ (RABBITMQ_URL): a durable queue of its own per path, persistent
// messages published with confirms before the timer starts, 16 consumers
// on channels of their own (prefetch 16); the bare consumer acks (Ack)
// after its commit, as the adapter does.
func BenchmarkRabbitMQInbox(b *testing.B) {
	conn, err := amqp.Dial(rabbitMQURL(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close() })
	runPaths(b, func(b *testing.B, n int) benchFeed {
		return newRabbitMQFeed(b, rabbitMQURL(b), conn, fmt.Sprintf("idembroker-bench-%d-%d", os.Getpid(), queues.Add(1)), n)
	})
}

// rabbitMQFeed is a queue of its own; the bare consumers use channels of
// a shared connection, the adapter dials its own, as Run requires.
type rabbitMQFeed struct {
	url   string
	conn  *amqp.Connection
	queue string
}

// newRabbitMQFeed declares queue and publishes n persistent messages to it,
// waiting for the server's confirms; the queue is deleted when b ends.
func newRabbitMQFeed(b *testing.B, url string, conn *amqp.Connection, queue string, n int) *rabbitMQFeed {
	ch, err := conn.Channel()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = ch.Close() }()
	if _, err := ch.QueueDeclare(queue, true, false, false, false, nil); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if ch, err := conn.Channel(); err == nil {
			_, _ = ch.QueueDelete(queue, false, false, false)
			_ = ch.Close()
		}
	})
	if err := ch.Confirm(false); err != nil {
		b.Fatal(err)
	}
	confirms := ch.NotifyPublish(make(chan amqp.Confirmation, n))
	for i := range n {
		if err := ch.PublishWithContext(b.Context(), "", queue, false, false, amqp.Publishing{MessageId: strconv.Itoa(i),
			Body: benchBody(i), DeliveryMode: amqp.Persistent}); err != nil {
			b.Fatal(err)
		}
	}
	for range n {
		if c := <-confirms; !c.Ack {
			b.Fatalf("publish %d not confirmed", c.DeliveryTag)
		}
	}
	return &rabbitMQFeed{url: url, conn: conn, queue: queue}
}

func (f *rabbitMQFeed) source() string { return f.queue }

// channel opens a channel with the benchmark's prefetch.
func (f *rabbitMQFeed) channel() (*amqp.Channel, error) {
	ch, err := f.conn.Channel()
	if err == nil {
		if err = ch.Qos(benchPull, 0, false); err != nil {
			_ = ch.Close()
		}
	}
	return ch, err
}

func (f *rabbitMQFeed) consume(ctx context.Context, d idembroker.Deliverer, onError func(error)) error {
	return rabbitmq.Run(ctx, rabbitmq.Config{Dial: func() (*amqp.Connection, error) { return amqp.Dial(f.url) },
		Queue: f.queue, Prefetch: benchPull, Deliverer: d, OnError: onError})
}

func (f *rabbitMQFeed) consumeBare(ctx context.Context, apply func(ctx context.Context, source, id string, body []byte) error, done func()) error {
	ch, err := f.channel()
	if err != nil {
		return err
	}
	defer func() { _ = ch.Close() }()
	deliveries, err := ch.ConsumeWithContext(ctx, f.queue, "", false, false, false, false, nil)
	if err != nil {
		return err
	}
	for d := range deliveries {
		if ctx.Err() != nil {
			return nil // the rest return to the queue when the channel closes
		}
		// As the adapter's, a delivery runs to its end.
		mctx := context.WithoutCancel(ctx)
		if err := apply(mctx, f.queue, d.MessageId, d.Body); err != nil {
			return err
		}
		done()
		if err := d.Ack(false); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return errors.New("the channel closed")
}
