// Package brokertest is the suite every broker adapter of the idempotent
// consumer passes, after Watermill's TestPubSub(Features{…}): Run drives
// an adapter through a Harness (publish, start and crash consumers,
// restart the broker where it can) on a real broker and a real
// PostgreSQL, and asserts the exact counts of handler runs, committed
// changes and effects, read from the database, in each case: a crash
// before the commit, a crash between the commit and the ack, concurrent
// consumers, a poison message, unusable message ids, a restarted broker,
// ordering, a stop while a handler runs.
//
// It imports no broker client: each harness (in the interop module, or a
// service's own tests) brings its broker's.
package brokertest

import (
	"context"
	"testing"

	"github.com/idemgen/idemgen/runtime/idembroker"
)

// Features says what a harness's broker can do and promises.
type Features struct {
	// RestartBroker: the harness restarts the broker keeping its
	// messages (Harness.RestartBroker).
	RestartBroker bool
	// RestartRequeues: the restart hands the deliveries the broker had
	// sent back to their queue and voids the acks sent for them after it
	// (RabbitMQ: a delivery tag belongs to its channel), so a message a
	// handler held across the restart is delivered exactly once more. On
	// other brokers the ack may arrive and the message not come back.
	RestartRequeues bool
	// NoRestart, when RestartBroker is false, says why the harness
	// cannot restart its broker; the restart case is skipped with it.
	NoRestart string
	// Ordered: one consumer gets the messages published with one
	// OrderKey in the order they were published.
	Ordered bool
	// DedupesPublish: the broker drops a message published again with
	// an id it has (JetStream's Nats-Msg-Id window), so a producer's
	// retry is never delivered.
	DedupesPublish bool
}

// Message is a message the suite publishes.
type Message struct {
	// ID is the message's identity as the broker carries it (a header, a
	// message-id property): the id the adapter delivers it under.
	ID string
	// Body is the payload.
	Body []byte
	// OrderKey, when not "", groups messages the broker keeps in order
	// (a Kafka record key); "" lets the broker spread them.
	OrderKey string
}

// Harness runs one adapter on one broker for one case of the suite: Run
// asks the factory for a fresh one (its own stream, queue or topic) for
// each case. Its consumers share one subscription (a durable consumer, a
// queue, a consumer group), so each message goes to one of them.
type Harness interface {
	// Features says what the broker can do.
	Features() Features
	// Source is the source the adapter delivers the messages under: the
	// stream, queue or topic.
	Source() string
	// Publish publishes m, failing t if it cannot.
	Publish(t testing.TB, m Message)
	// Start starts one consumer: the adapter's Run handing messages to d,
	// on a connection of its own.
	Start(t testing.TB, d idembroker.Deliverer) *Consumer
	// RestartBroker stops the broker and starts it again with its
	// messages; only called when Features().RestartBroker.
	RestartBroker(t testing.TB)
	// Unacked is the number of messages the broker holds for the
	// subscription and not acknowledged: not delivered, or delivered and
	// neither acked nor terminated. Called with no consumer running.
	Unacked(t testing.TB) int
}

// Consumer is a running adapter, started by a Harness with Go.
type Consumer struct {
	cancel context.CancelFunc
	kill   func()
	done   chan error
}

// Go runs run in a goroutine with a context Stop cancels; kill, if not
// nil, drops the consumer's connection as a crash would (no ack, no nack
// of what it holds) without waiting; nil means a crash is a cancel of the
// context (a broker whose offsets the adapter commits only when it acks).
func Go(run func(ctx context.Context) error, kill func()) *Consumer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Consumer{cancel: cancel, kill: kill, done: make(chan error, 1)}
	if c.kill == nil {
		c.kill = cancel
	}
	go func() { c.done <- run(ctx) }()
	return c
}

// Stop stops the consumer gracefully and returns Run's error once it
// returned.
func (c *Consumer) Stop() error {
	c.cancel()
	return c.wait()
}

// crash drops the consumer's connection; wait waits for Run to return.
func (c *Consumer) crash() { c.kill() }

// wait returns Run's error once it returned, and ends its context.
func (c *Consumer) wait() error {
	err := <-c.done
	c.done <- err
	c.cancel()
	return err
}
