package idembroker_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idembroker/rabbitmq"
)

// A delivery whose headers leave no room in a frame for the reason is
// rejected, reported, instead of published with a header frame over the
// connection's frame_max: the broker would close the whole connection
// with a FRAME_ERROR, requeue the delivery, and the consumer would lose
// its connection to it again at each redelivery, never reaching the good
// message after it. (The queue has no dead-letter exchange: RabbitMQ's
// x-death headers would make the rejected copy too large for any
// consumer's frame_max to take.)
func TestRabbitMQRejectsADeadLetterOverTheFrameMax(t *testing.T) {
	f := newDLFixture(t, nil)
	exchange, dlq := f.name("dlx"), f.name("dlq")
	f.declareDeadLetters(t, exchange, dlq)
	// The message's header frame fills frame_max (131072, the broker's
	// default) but for 40 bytes: fewer than the reason adds.
	const id = "bad\x01big"
	props := len(id) + 1 + 4 + 1 + len("x-big") + 1 + 4 + len("application/json") + 1 + len("corr") + 1 + 1 + 1 +
		len("600000") + 1 + len("app") + 1 + len("order.placed") + 1
	big := strings.Repeat("h", 131072-8-14-props-40)
	f.publish(t, id, amqp.Table{"x-big": big})
	f.publish(t, "good", nil)
	c := newDLConsumer(t)
	reports := make(chan error, 100)
	stop := f.run(t, c, &rabbitmq.DeadLetter{Exchange: exchange}, reports)
	defer stop()
	var seen []error
	for good := c.handled("good"); good != nil; {
		select {
		case <-good:
			good = nil
		case err := <-reports:
			if strings.Contains(err.Error(), "connection was lost") {
				t.Fatalf("the consumer lost its connection before the good message: %v", err)
			}
			seen = append(seen, err)
		case <-time.After(waitLimit):
			t.Fatalf("the good message was not handled within %v (reports: %v)", waitLimit, seen)
		}
	}
	stop()
	if !slices.ContainsFunc(seen, func(err error) bool { return strings.Contains(err.Error(), "frame") }) &&
		firstReport(reports, "frame") == nil {
		t.Errorf("no report of the dead letter over the frame_max")
	}
	for _, q := range []string{f.queue, dlq} {
		if n := f.messages(t, q); n != 0 {
			t.Errorf("%s holds %d messages after the consumer stopped, want 0", q, n)
		}
	}
}

// A DeadLetter exchange that routes back to the queue consumed (here a
// fanout the queue is bound to, which Run cannot see when it starts) would
// bring each dead letter back to be dead-lettered again, forever: the
// dead letter that comes back from the queue's own DeadLetter is rejected
// instead, reported, and the queue is left empty.
func TestRabbitMQRejectsADeadLetterThatCameBack(t *testing.T) {
	f := newDLFixture(t, nil)
	exchange := f.name("dlx")
	if err := f.ch.ExchangeDeclare(exchange, amqp.ExchangeFanout, false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	f.bind(t, f.queue, exchange)
	f.publish(t, "bad\x01loop", nil)
	c := newDLConsumer(t)
	reports := make(chan error, 100)
	stop := f.run(t, c, &rabbitmq.DeadLetter{Exchange: exchange}, reports)
	defer stop()
	deadLettered := 0
	for {
		var err error
		select {
		case err = <-reports:
		case <-time.After(waitLimit):
			t.Fatalf("no report of the dead letter that came back within %v", waitLimit)
		}
		if strings.Contains(err.Error(), "came back") {
			break
		}
		if strings.Contains(err.Error(), "dead-lettered to") {
			if deadLettered++; deadLettered > 1 {
				t.Fatalf("the delivery was dead-lettered again: %v", err)
			}
		}
	}
	stop()
	if n := f.messages(t, f.queue); n != 0 {
		t.Errorf("%s holds %d messages after the consumer stopped, want 0", f.queue, n)
	}
}
