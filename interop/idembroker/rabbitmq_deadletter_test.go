package idembroker_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker/rabbitmq"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// The ids of the dead-letter tests: the consumer accepts at most
// dlMaxIDLength bytes.
const dlMaxIDLength = 64

// Deliveries the consumer refuses to take reach the DeadLetter exchange,
// each once, with their body, properties and headers, and a reason that
// names what is wrong with the message-id: valid UTF-8, bounded, never
// the id itself. The handler runs for the good message published after
// them only, and the queue holds nothing afterwards.
func TestRabbitMQDeadLettersUnusableIDsWithTheReason(t *testing.T) {
	f := newDLFixture(t, nil)
	exchange, dlq := f.name("dlx"), f.name("dlq")
	f.declareDeadLetters(t, exchange, dlq)
	dead := f.consume(t, dlq)
	cases := map[string]string{ // message-id: what the reason names
		"":                           "is empty",
		"secret\x01id":               "control character U+0001",
		"secret\xffid":               "not UTF-8",
		strings.Repeat("secret", 11): fmt.Sprintf("at most %d", dlMaxIDLength),
		"secret\x00" + strings.Repeat("\xff", 200): fmt.Sprintf("of 207 bytes, at most %d", dlMaxIDLength),
	}
	for id := range cases {
		f.publish(t, id, amqp.Table{"x-trace": "t-" + fmt.Sprint(len(id)), "x-count": int32(len(id))})
	}
	f.publish(t, "good", nil)
	c := newDLConsumer(t)
	stop := f.run(t, c, &rabbitmq.DeadLetter{Exchange: exchange, RoutingKey: "dead"}, nil)
	<-c.handled("good")
	got := map[string]amqp.Delivery{}
	for range cases {
		d := receive(t, dead, "dead letter")
		if _, dup := got[d.MessageId]; dup {
			t.Errorf("message-id %q dead-lettered twice", d.MessageId)
		}
		got[d.MessageId] = d
	}
	stop()
	for id, want := range cases {
		d, ok := got[id]
		if !ok {
			t.Errorf("message-id %q: no dead letter", id)
			continue
		}
		if string(d.Body) != "body of "+id || d.ContentType != "application/json" || d.CorrelationId != "corr" ||
			d.DeliveryMode != amqp.Persistent || d.Priority != 3 || d.AppId != "app" || d.Type != "order.placed" ||
			d.RoutingKey != "dead" {
			t.Errorf("message-id %q: dead letter %+v lost the body or properties", id, d)
		}
		if d.Expiration != "" {
			t.Errorf("message-id %q: dead letter expires after %s ms in its queue, want never", id, d.Expiration)
		}
		if d.Headers["x-trace"] != "t-"+fmt.Sprint(len(id)) || d.Headers["x-count"] != int32(len(id)) {
			t.Errorf("message-id %q: dead letter headers %v, want the original headers", id, d.Headers)
		}
		if q := d.Headers[rabbitmq.SourceQueueHeader]; q != f.queue {
			t.Errorf("message-id %q: %s %v, want %s", id, rabbitmq.SourceQueueHeader, q, f.queue)
		}
		reason, _ := d.Headers[rabbitmq.ReasonHeader].(string)
		if !strings.Contains(reason, want) || !utf8.ValidString(reason) || len(reason) > rabbitmq.MaxReasonLength {
			t.Errorf("message-id %q: reason %q; want valid UTF-8 of at most %d bytes naming %q",
				id, reason, rabbitmq.MaxReasonLength, want)
		}
		if strings.Contains(reason, "secret") {
			t.Errorf("message-id %q: reason %q holds the id", id, reason)
		}
	}
	if n := f.messages(t, f.queue); n != 0 {
		t.Errorf("%s holds %d messages after the consumer stopped, want 0", f.queue, n)
	}
	if runs := c.runs(); len(runs) != 1 || runs["good"] != 1 {
		t.Errorf("handler runs %v, want good's only", runs)
	}
}

// When the DeadLetter cannot take a delivery (its exchange does not
// exist, and the broker closes the publishing channel with 404; it routes
// the delivery nowhere and the broker returns it; or it routes it to a
// full queue that rejects publishes, and the broker nacks it), the
// delivery is rejected as without one, to the queue's own dead-letter
// exchange, and the failure is reported; the consumer goes on with the
// good message after it, and once the exchange routes to a queue that
// takes it, it dead-letters the next such delivery with its reason,
// opening a channel again after the 404.
func TestRabbitMQRejectsWhenTheDeadLetterFails(t *testing.T) {
	for _, tc := range []struct {
		name    string
		declare bool   // the exchange exists, bound to nothing
		full    bool   // the exchange exists, bound to a full queue
		want    string // in the reported failure
	}{
		{name: "MissingExchange", want: "NOT_FOUND"},
		{name: "Unroutable", declare: true, want: "NO_ROUTE"},
		{name: "Nacked", full: true, want: "nacked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			queueDLX := fmt.Sprintf("idembroker-dl-%d-%d-queue-dlx", os.Getpid(), queues.Add(1))
			f := newDLFixture(t, amqp.Table{"x-dead-letter-exchange": queueDLX})
			queueDLQ := f.name("queue-dlq")
			f.declareDeadLetters(t, queueDLX, queueDLQ)
			exchange, dlq, full := f.name("dlx"), f.name("dlq"), f.name("full")
			if tc.declare || tc.full {
				if err := f.ch.ExchangeDeclare(exchange, amqp.ExchangeFanout, false, true, false, false, nil); err != nil {
					t.Fatal(err)
				}
			}
			if tc.full {
				f.declareQueue(t, full, amqp.Table{"x-max-length": int32(0), "x-overflow": "reject-publish"})
				f.bind(t, full, exchange)
			}
			rejected := f.consume(t, queueDLQ)
			f.publish(t, "bad\x01one", amqp.Table{"x-trace": "one"})
			f.publish(t, "good", nil)
			c := newDLConsumer(t)
			reports := make(chan error, 100)
			stop := f.run(t, c, &rabbitmq.DeadLetter{Exchange: exchange}, reports)
			defer stop()
			d := receive(t, rejected, "rejected delivery")
			if d.MessageId != "bad\x01one" || d.Headers["x-trace"] != "one" || d.Headers[rabbitmq.ReasonHeader] != nil {
				t.Errorf("rejected delivery %q, headers %v; want bad\\x01one as published", d.MessageId, d.Headers)
			}
			if deaths, _ := d.Headers["x-death"].([]any); len(deaths) != 1 ||
				deaths[0].(amqp.Table)["reason"] != "rejected" {
				t.Errorf("rejected delivery x-death %v, want one, rejected", d.Headers["x-death"])
			}
			// The failure is reported before the delivery is rejected.
			if err := firstReport(reports, "dead-lettering"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("reported %v, want the dead-lettering's failure: %s", err, tc.want)
			}
			<-c.handled("good")

			f.declareDeadLetters(t, exchange, dlq)
			if tc.full {
				if err := f.ch.QueueUnbind(full, "", exchange, nil); err != nil {
					t.Fatal(err)
				}
			}
			dead := f.consume(t, dlq)
			f.publish(t, "bad\x01two", amqp.Table{"x-trace": "two"})
			d = receive(t, dead, "dead letter after the failure")
			if reason, _ := d.Headers[rabbitmq.ReasonHeader].(string); d.MessageId != "bad\x01two" ||
				d.Headers["x-trace"] != "two" || !strings.Contains(reason, "control character U+0001") {
				t.Errorf("dead letter %q, headers %v; want bad\\x01two with its reason", d.MessageId, d.Headers)
			}
			stop()
			if n := f.messages(t, f.queue); n != 0 {
				t.Errorf("%s holds %d messages after the consumer stopped, want 0", f.queue, n)
			}
		})
	}
}

// firstReport returns the first error reports holds whose text holds
// text, nil if none; it does not wait.
func firstReport(reports <-chan error, text string) error {
	for {
		select {
		case err := <-reports:
			if strings.Contains(err.Error(), text) {
				return err
			}
		default:
			return nil
		}
	}
}

// dlFixture is a dead-letter test's queue and its channel to the server.
type dlFixture struct {
	url   string
	ch    *amqp.Channel // in confirm mode
	queue string
	args  amqp.Table // the queue's arguments, declared by Run's Declare
	n     int
}

// newDLFixture declares a queue of the test's own with args.
func newDLFixture(t *testing.T, args amqp.Table) *dlFixture {
	url := rabbitMQURL(t)
	f := &dlFixture{url: url, args: args}
	f.queue = f.name("queue")
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if f.ch, err = conn.Channel(); err != nil {
		t.Fatal(err)
	}
	if err := f.ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	f.declareQueue(t, f.queue, args)
	return f
}

// name returns a name of the fixture's own, for a queue or an exchange,
// deleted when the test ends (auto-delete exchanges, queues deleted).
func (f *dlFixture) name(what string) string {
	f.n++
	return fmt.Sprintf("idembroker-dl-%d-%d-%s-%d", os.Getpid(), queues.Add(1), what, f.n)
}

// declare declares the fixture's queue: Run's Declare.
func (f *dlFixture) declare(ch *amqp.Channel) error {
	_, err := ch.QueueDeclare(f.queue, false, false, false, false, f.args)
	return err
}

// declareDeadLetters declares exchange, a fanout deleted after its last
// binding, and the queue queue it routes every message to.
func (f *dlFixture) declareDeadLetters(t *testing.T, exchange, queue string) {
	t.Helper()
	if err := f.ch.ExchangeDeclare(exchange, amqp.ExchangeFanout, false, true, false, false, nil); err != nil {
		t.Fatal(err)
	}
	f.declareQueue(t, queue, nil)
	f.bind(t, queue, exchange)
}

// bind binds queue to exchange.
func (f *dlFixture) bind(t *testing.T, queue, exchange string) {
	t.Helper()
	if err := f.ch.QueueBind(queue, "", exchange, false, nil); err != nil {
		t.Fatal(err)
	}
}

// declareQueue declares queue with args, deleted when t ends.
func (f *dlFixture) declareQueue(t *testing.T, queue string, args amqp.Table) {
	t.Helper()
	if _, err := f.ch.QueueDeclare(queue, false, false, false, false, args); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := f.ch.QueueDelete(queue, false, false, false); err != nil {
			t.Errorf("deleting %s: %v", queue, err)
		}
	})
}

// publish publishes a message with id and headers to the fixture's queue
// and waits for the server's confirm.
func (f *dlFixture) publish(t *testing.T, id string, headers amqp.Table) {
	t.Helper()
	dc, err := f.ch.PublishWithDeferredConfirmWithContext(t.Context(), "", f.queue, true, false, amqp.Publishing{
		MessageId: id, Headers: headers, Body: []byte("body of " + id), ContentType: "application/json",
		CorrelationId: "corr", DeliveryMode: amqp.Persistent, Priority: 3, Expiration: "600000", AppId: "app",
		Type: "order.placed"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := dc.WaitContext(t.Context()); err != nil || !ok {
		t.Fatalf("publishing %q: confirmed %v, %v", id, ok, err)
	}
}

// consume consumes queue on a channel of its own, acknowledging
// automatically.
func (f *dlFixture) consume(t *testing.T, queue string) <-chan amqp.Delivery {
	t.Helper()
	conn, err := amqp.Dial(f.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ch.Consume(queue, "", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// messages is the number of ready messages in queue.
func (f *dlFixture) messages(t *testing.T, queue string) int {
	t.Helper()
	q, err := f.ch.QueueDeclarePassive(queue, false, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q.Messages
}

// run runs the adapter on the fixture's queue with dl, handing what it
// reports to reports (and the log) if not nil; stop stops it and waits
// for Run to return, once.
func (f *dlFixture) run(t *testing.T, c *dlConsumer, dl *rabbitmq.DeadLetter, reports chan<- error) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- rabbitmq.Run(ctx, rabbitmq.Config{Dial: func() (*amqp.Connection, error) { return amqp.Dial(f.url) },
			Declare: f.declare, Queue: f.queue, Deliverer: c.Consumer, DeadLetter: dl, RetryDelay: retryDelay,
			MaxReconnectDelay: maxReconnectDelay, OnError: func(err error) {
				t.Log(err)
				if reports != nil {
					select {
					case reports <- err:
					default:
					}
				}
			}})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// receive returns the next delivery of ds, failing t if none comes within
// waitLimit (a failure's bound, never a verdict on speed).
func receive(t *testing.T, ds <-chan amqp.Delivery, what string) amqp.Delivery {
	t.Helper()
	select {
	case d := <-ds:
		return d
	case <-time.After(waitLimit):
		t.Fatalf("no %s within %v", what, waitLimit)
		return amqp.Delivery{}
	}
}

// waitLimit bounds each wait for a delivery.
const waitLimit = 2 * time.Minute

// dlConsumer is an idempotent consumer on a database of the test's own
// whose handler records its runs.
type dlConsumer struct {
	*idem.Consumer

	mu      sync.Mutex
	counts  map[string]int
	waiters map[string]chan struct{}
}

// newDLConsumer returns a dlConsumer on a migrated database of t's own,
// accepting ids of at most dlMaxIDLength bytes.
func newDLConsumer(t *testing.T) *dlConsumer {
	t.Helper()
	pool := pgtest.Pool(t)
	if err := idem.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	c := &dlConsumer{counts: map[string]int{}, waiters: map[string]chan struct{}{}}
	c.Consumer, err = idem.NewConsumer(exec, idem.ConsumerConfig{Name: "deadletter", MaxAttempts: 3,
		Retention: time.Hour, MaxIDLength: dlMaxIDLength,
		Handler: func(_ context.Context, _ pgx.Tx, d *idem.Delivery) error {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.counts[d.Message.ID]++
			if c.counts[d.Message.ID] == 1 {
				close(c.waiter(d.Message.ID))
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// handled returns a channel closed once the handler ran for id.
func (c *dlConsumer) handled(id string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.waiter(id)
}

// waiter returns id's channel, closed at its first run; c.mu is held.
func (c *dlConsumer) waiter(id string) chan struct{} {
	w, ok := c.waiters[id]
	if !ok {
		w = make(chan struct{})
		c.waiters[id] = w
	}
	return w
}

// runs returns the handler's runs by message id.
func (c *dlConsumer) runs() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}
