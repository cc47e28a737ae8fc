// Package rabbitmq consumes a RabbitMQ (AMQP 0-9-1) queue into an
// idempotent consumer (idem.Consumer): each delivery is acknowledged only
// after its outcome committed, and a delivery to retry is negatively
// acknowledged, alone, and requeued. When the connection is lost (a
// broker restart, a network cut) it dials again with a bounded backoff
// and resumes. A delivery that can never be processed (its message-id
// missing or refused) is published, with why, to the DeadLetter the
// Config names, or rejected to the queue's dead-letter exchange. It links
// amqp091-go, so it is a package of its own (see idembroker).
package rabbitmq

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker"
)

// Defaults for the Config fields left 0.
const (
	// DefaultRetryDelay is how long a delivery to retry is held before
	// it is requeued.
	DefaultRetryDelay = time.Second
	// DefaultPrefetch is the channel's prefetch: the deliveries held
	// unacknowledged at once.
	DefaultPrefetch = 10
	// DefaultReconnectDelay is the first wait before dialing again after
	// the connection was lost or could not be opened; each failure in a
	// row doubles it up to DefaultMaxReconnectDelay.
	DefaultReconnectDelay = 100 * time.Millisecond
	// DefaultMaxReconnectDelay bounds the wait between two dials.
	DefaultMaxReconnectDelay = 10 * time.Second
)

// Config configures Run.
type Config struct {
	// Dial opens a connection to the broker, amqp.Dial(url) for
	// instance. Run calls it at the start and again whenever the
	// connection is lost, and closes the connections it got. With a
	// DeadLetter it also dials the dead letters' own connection, when
	// the first is due.
	Dial func() (*amqp.Connection, error)
	// Declare, if set, declares the queue (and what it needs: exchanges,
	// bindings) on each new channel before Run consumes on it, so a
	// queue the broker lost in a restart exists again.
	Declare func(*amqp.Channel) error
	// Queue is the queue consumed, and the messages' source.
	Queue string
	// Prefetch bounds the deliveries held unacknowledged at once (the
	// channel's Qos); 0 means DefaultPrefetch.
	Prefetch int
	// ConsumerTag names the subscription on the channel; "" lets Run
	// pick one.
	ConsumerTag string
	// Deliverer gets the messages: an *idem.Consumer.
	Deliverer idembroker.Deliverer
	// RetryDelay is how long a delivery to retry is held before it is
	// requeued (RabbitMQ requeues at once); 0 means DefaultRetryDelay.
	RetryDelay time.Duration
	// ReconnectDelay and MaxReconnectDelay bound the backoff between
	// dials; 0 means DefaultReconnectDelay and DefaultMaxReconnectDelay.
	ReconnectDelay, MaxReconnectDelay time.Duration
	// DeadLetter, if set, is where a delivery that can never be
	// processed goes, with why: Run publishes it there (body, headers,
	// properties, and ReasonHeader and SourceQueueHeader added) on a
	// channel in confirm mode, mandatory, and acknowledges it once the
	// broker confirmed it routed it. If the publish fails (the exchange
	// does not exist, routes it nowhere, the broker refuses it or the
	// channel is lost), the delivery is rejected as without DeadLetter,
	// and the failure reported. Nil rejects such a delivery without
	// requeueing, to the queue's dead-letter exchange if it has one,
	// where RabbitMQ says only that it was rejected. A dead letter that
	// comes back to Queue (the DeadLetter routes there) is rejected too,
	// not published again. Declare may declare the exchange and its queue.
	//
	// Dead letters go out on a connection of their own: under a memory or
	// disk alarm RabbitMQ stops reading a connection that publishes, and
	// the consuming connection goes on acknowledging. While the broker
	// blocks the dead letters' connection (connection.blocked), Run stops
	// waiting for the confirm and requeues the delivery after RetryDelay,
	// as a delivery to retry, to dead-letter it once the alarm clears; the
	// publish left unconfirmed may be published then too, so the dead
	// letter may arrive twice.
	DeadLetter *DeadLetter
	// OnError, if set, gets the errors that do not stop Run: a lost
	// connection and why, a failed dial, a failed ack (the message comes
	// back and is answered as a duplicate), a delivery that decided
	// nothing (it is requeued) or one that can never be processed, and
	// a dead letter that could not be published.
	OnError func(error)
}

// Run consumes cfg.Queue until ctx ends, one delivery at a time, and
// returns after the delivery in flight finished (ctx's end does not
// interrupt it); deliveries the channel holds unacknowledged are requeued
// by the broker when the channel closes. It returns an error only when
// cfg lacks Dial, Queue or Deliverer. Run several, on connections of their
// own, for concurrency: the inbox lets one delivery of a message run at a
// time.
//
// A lost connection ends its channel and the deliveries it held: the
// broker requeues them, and the acks sent for them after the loss fail
// (reported). Run dials again after ReconnectDelay, doubled after each
// failure in a row up to MaxReconnectDelay, declares and consumes again;
// a message whose commit made it before its ack was lost comes back and is
// answered as a duplicate, without running the handler again.
//
// The message's id is its message-id property; a delivery without one, or
// whose id the consumer refuses (idem.ErrInvalidMessage: too long, not
// UTF-8, a control character), can never be processed and is reported.
// With a DeadLetter it is published there with the refusal in
// ReasonHeader and acknowledged once the broker confirmed the publish;
// without one, or when that publish fails, it is rejected without
// requeueing (to the queue's dead-letter exchange, if it has one, which
// records only that it was rejected); while the broker blocks publishing
// (an alarm) it is requeued, to be dead-lettered once the alarm clears,
// and Run goes on with the deliveries after it. A connection lost between the
// confirm and the ack brings the delivery back, and it is published
// again: a dead letter arrives at least once, under its message-id. The
// broker's delivery counts (redelivered, x-delivery-count) are not used:
// attempts are counted in the inbox row.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Dial == nil || cfg.Queue == "" || cfg.Deliverer == nil {
		return errors.New("rabbitmq: Run needs Dial, a Queue and a Deliverer")
	}
	if dl := cfg.DeadLetter; dl != nil && dl.Exchange == "" && cfg.deadLetterKey() == cfg.Queue {
		return errors.New("rabbitmq: the DeadLetter routes to the queue consumed: name an Exchange or another RoutingKey")
	}
	cfg.defaults()
	delay := cfg.ReconnectDelay
	for {
		consumed, err := cfg.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if consumed {
			delay = cfg.ReconnectDelay
		}
		cfg.report(fmt.Errorf("rabbitmq: consuming %s: %w; dialing again in %v", cfg.Queue, err, delay))
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil
		}
		delay = min(2*delay, cfg.MaxReconnectDelay)
	}
}

// defaults fills the fields left 0.
func (cfg *Config) defaults() {
	if cfg.RetryDelay == 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	if cfg.Prefetch == 0 {
		cfg.Prefetch = DefaultPrefetch
	}
	if cfg.ReconnectDelay == 0 {
		cfg.ReconnectDelay = DefaultReconnectDelay
	}
	if cfg.MaxReconnectDelay == 0 {
		cfg.MaxReconnectDelay = DefaultMaxReconnectDelay
	}
	if cfg.ConsumerTag == "" {
		cfg.ConsumerTag = "idem-" + cfg.Queue + "-" + fmt.Sprint(time.Now().UnixNano())
	}
}

// session dials, consumes until ctx ends or the connection or channel is
// lost, and closes the connection; consumed says whether it got as far as
// consuming, the error why it ended otherwise (nil when ctx ended).
func (cfg *Config) session(ctx context.Context) (consumed bool, err error) {
	conn, err := cfg.Dial()
	if err != nil {
		return false, fmt.Errorf("dialing: %w", err)
	}
	// Closing waits for the server's reply, which it sends after the
	// acks before it.
	defer conn.Close()
	lost := conn.NotifyClose(make(chan *amqp.Error, 1))
	ch, err := conn.Channel()
	if err != nil {
		return false, fmt.Errorf("opening a channel: %w", err)
	}
	chLost := ch.NotifyClose(make(chan *amqp.Error, 1))
	if err := ch.Qos(cfg.Prefetch, 0, false); err != nil {
		return false, fmt.Errorf("setting the prefetch: %w", err)
	}
	if cfg.Declare != nil {
		if err := cfg.Declare(ch); err != nil {
			return false, fmt.Errorf("declaring: %w", err)
		}
	}
	deliveries, err := ch.Consume(cfg.Queue, cfg.ConsumerTag, false, false, false, false, nil)
	if err != nil {
		return false, err
	}
	var dl *deadLetterer
	if cfg.DeadLetter != nil {
		dl = &deadLetterer{cfg: cfg}
		defer dl.close()
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			// Deliveries sent before the cancel still arrive; they are
			// requeued below, unprocessed.
			if err := ch.Cancel(cfg.ConsumerTag, false); err != nil {
				cfg.report(fmt.Errorf("rabbitmq: cancelling the subscription to %s: %w", cfg.Queue, err))
			}
		case <-stopped:
		}
	}()
	for d := range deliveries {
		if ctx.Err() != nil {
			cfg.requeue(&d)
			continue
		}
		cfg.deliver(ctx, &d, dl)
	}
	if ctx.Err() != nil {
		return true, nil
	}
	// The deliveries end after the channel's or the connection's close
	// notice was sent, if it was closed.
	select {
	case e := <-lost:
		return true, closed("the connection was lost", e)
	case e := <-chLost:
		return true, closed("the channel was closed", e)
	default:
		return true, errors.New("the broker cancelled the subscription")
	}
}

// closed is the error of a close notice: what closed, and the broker's
// reason when it gave one (nil when the client closed it).
func closed(what string, reason *amqp.Error) error {
	if reason == nil {
		return errors.New(what)
	}
	return fmt.Errorf("%s: %w", what, reason)
}

// deliver hands d to the Deliverer and acknowledges it, or requeues it
// after the retry delay; one that can never be processed goes to dl (nil
// without a DeadLetter).
func (cfg *Config) deliver(ctx context.Context, d *amqp.Delivery, dl *deadLetterer) {
	trace, _ := d.Headers["traceparent"].(string)
	res, err := cfg.Deliverer.Deliver(context.WithoutCancel(ctx),
		idem.Message{Source: cfg.Queue, ID: d.MessageId, Body: d.Body, TraceContext: trace})
	switch {
	case errors.Is(err, idem.ErrInvalidMessage):
		cfg.unusable(ctx, d, dl, err)
		return
	case err != nil:
		cfg.report(fmt.Errorf("rabbitmq: message %s of %s: %w", d.MessageId, cfg.Queue, err))
	case res.Outcome.Ack():
		if err := d.Ack(false); err != nil {
			cfg.report(fmt.Errorf("rabbitmq: acknowledging message %s of %s (it comes back, a duplicate): %w",
				d.MessageId, cfg.Queue, err))
		}
		return
	}
	cfg.holdAndRequeue(ctx, d)
}

// holdAndRequeue requeues d after the retry delay, or when ctx ends.
func (cfg *Config) holdAndRequeue(ctx context.Context, d *amqp.Delivery) {
	select {
	case <-time.After(cfg.RetryDelay):
	case <-ctx.Done():
	}
	cfg.requeue(d)
}

// unusable dead-letters d, which can never be processed because the
// Deliverer refused its message-id with why, to dl, or rejects it
// without requeueing when dl is nil, the publish failed, or d is a dead
// letter of cfg.Queue already: the DeadLetter routes back to the queue,
// and publishing it again would loop forever. While the broker blocks
// dl's publishes (an alarm), d is requeued as a delivery to retry, to be
// dead-lettered later.
func (cfg *Config) unusable(ctx context.Context, d *amqp.Delivery, dl *deadLetterer, why error) {
	if dl != nil && cameBack(d, cfg.Queue) {
		cfg.report(fmt.Errorf("rabbitmq: a dead letter of %s came back from %q with key %q, which route to %[1]s: "+
			"rejecting it instead of dead-lettering it again", cfg.Queue, cfg.DeadLetter.Exchange, cfg.deadLetterKey()))
		dl = nil
	}
	if dl != nil {
		err := dl.publish(d, "its message-id: "+why.Error())
		if errors.Is(err, errBlocked) {
			cfg.report(fmt.Errorf("rabbitmq: dead-lettering a delivery of %s to %q with key %q, requeueing it: %w",
				cfg.Queue, cfg.DeadLetter.Exchange, cfg.deadLetterKey(), err))
			cfg.holdAndRequeue(ctx, d)
			return
		}
		if err == nil {
			cfg.report(fmt.Errorf("rabbitmq: a delivery of %s, dead-lettered to %q with key %q: its message-id: %w",
				cfg.Queue, cfg.DeadLetter.Exchange, cfg.deadLetterKey(), why))
			if err := d.Ack(false); err != nil {
				cfg.report(fmt.Errorf("rabbitmq: acknowledging a dead-lettered delivery of %s (it comes back, "+
					"dead-lettered again): %w", cfg.Queue, err))
			}
			return
		}
		cfg.report(fmt.Errorf("rabbitmq: dead-lettering a delivery of %s to %q with key %q, rejecting it instead: %w",
			cfg.Queue, cfg.DeadLetter.Exchange, cfg.deadLetterKey(), err))
	}
	cfg.report(fmt.Errorf("rabbitmq: a delivery of %s, rejected: its message-id: %w", cfg.Queue, why))
	cfg.report(d.Reject(false))
}

// requeue hands d back to the queue; when its channel is gone, the broker
// has requeued it already.
func (cfg *Config) requeue(d *amqp.Delivery) {
	if err := d.Nack(false, true); err != nil {
		cfg.report(fmt.Errorf("rabbitmq: requeueing message %s of %s: %w", d.MessageId, cfg.Queue, err))
	}
}

// report hands a non-nil err to OnError.
func (cfg *Config) report(err error) {
	if err != nil && cfg.OnError != nil {
		cfg.OnError(err)
	}
}
