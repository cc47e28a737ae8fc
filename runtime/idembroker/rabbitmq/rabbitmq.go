// Package rabbitmq consumes a RabbitMQ (AMQP 0-9-1) queue into an
// idempotent consumer (idem.Consumer): each delivery is acknowledged only
// after its outcome committed, and a delivery to retry is negatively
// acknowledged, alone, and requeued. It links amqp091-go, so it is a
// package of its own (see idembroker).
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

// DefaultRetryDelay is how long a delivery to retry is held before it is
// requeued when Config.RetryDelay is 0.
const DefaultRetryDelay = time.Second

// Config configures Run.
type Config struct {
	// Channel is the channel Run consumes on; set its prefetch (Qos) to
	// bound the deliveries held at once.
	Channel *amqp.Channel
	// Queue is the queue consumed, and the messages' source.
	Queue string
	// ConsumerTag names the subscription on the channel; "" lets the
	// library pick one.
	ConsumerTag string
	// Deliverer gets the messages: an *idem.Consumer.
	Deliverer idembroker.Deliverer
	// RetryDelay is how long a delivery to retry is held before it is
	// requeued (RabbitMQ requeues at once); 0 means DefaultRetryDelay.
	RetryDelay time.Duration
	// OnError, if set, gets the errors that do not stop Run: a failed ack
	// (the message comes back and is answered as a duplicate) or a
	// delivery that decided nothing (it is requeued).
	OnError func(error)
}

// Run consumes cfg.Queue until ctx ends, one delivery at a time, and
// returns after the delivery in flight finished (ctx's end does not
// interrupt it); deliveries the channel holds unacknowledged are requeued
// by the broker when the channel closes. It returns an error when the
// channel closes under it. Run several, on channels of their own, for
// concurrency: the inbox lets one delivery of a message run at a time.
//
// The message's id is its message-id property; a delivery without one can
// never be processed and is rejected without requeueing (to the queue's
// dead-letter exchange, if it has one). The broker's delivery counts
// (redelivered, x-delivery-count) are not used: attempts are counted in
// the inbox row.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Channel == nil || cfg.Queue == "" || cfg.Deliverer == nil {
		return errors.New("rabbitmq: Run needs a Channel, a Queue and a Deliverer")
	}
	if cfg.RetryDelay == 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	tag := cfg.ConsumerTag
	if tag == "" {
		tag = "idem-" + cfg.Queue + "-" + fmt.Sprint(time.Now().UnixNano())
	}
	deliveries, err := cfg.Channel.Consume(cfg.Queue, tag, false, false, false, false, nil)
	if err != nil {
		return fmt.Errorf("rabbitmq: consuming %s: %w", cfg.Queue, err)
	}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
			// Deliveries sent before the cancel still arrive; they are
			// requeued below, unprocessed.
			cfg.report(cfg.Channel.Cancel(tag, false))
		case <-stopped:
		}
	}()
	for d := range deliveries {
		if ctx.Err() != nil {
			cfg.report(d.Nack(false, true))
			continue
		}
		cfg.deliver(ctx, &d)
	}
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("rabbitmq: the channel consuming %s closed", cfg.Queue)
}

// deliver hands d to the Deliverer and acknowledges it, or requeues it
// after the retry delay.
func (cfg *Config) deliver(ctx context.Context, d *amqp.Delivery) {
	trace, _ := d.Headers["traceparent"].(string)
	res, err := cfg.Deliverer.Deliver(context.WithoutCancel(ctx),
		idem.Message{Source: cfg.Queue, ID: d.MessageId, Body: d.Body, TraceContext: trace})
	switch {
	case errors.Is(err, idem.ErrInvalidMessage):
		cfg.report(fmt.Errorf("rabbitmq: a delivery of %s without a message-id, rejected: %w", cfg.Queue, err))
		cfg.report(d.Reject(false))
		return
	case err != nil:
		cfg.report(fmt.Errorf("rabbitmq: message %s of %s: %w", d.MessageId, cfg.Queue, err))
	case res.Outcome.Ack():
		cfg.report(d.Ack(false))
		return
	}
	select {
	case <-time.After(cfg.RetryDelay):
	case <-ctx.Done():
	}
	cfg.report(d.Nack(false, true))
}

// report hands a non-nil err to OnError.
func (cfg *Config) report(err error) {
	if err != nil && cfg.OnError != nil {
		cfg.OnError(err)
	}
}
