// Package jetstream consumes a NATS JetStream pull consumer into an
// idempotent consumer (idem.Consumer): each message is acknowledged only
// after its delivery's outcome committed, and a message to retry is
// negatively acknowledged with a delay, alone. It links nats.go, so it is
// a package of its own (see idembroker).
package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker"
)

// MsgIDHeader is the header whose value is a message's id: the publisher's
// deduplication id. A message without it is named by its stream sequence.
const MsgIDHeader = "Nats-Msg-Id"

// DefaultRetryDelay is the delay of a redelivery when Config.RetryDelay is
// 0.
const DefaultRetryDelay = time.Second

// Config configures Run.
type Config struct {
	// Consumer is a pull consumer with explicit acks whose AckWait
	// outlasts a handler's run: a delivery not acknowledged within it is
	// redelivered (and waits for the first one in the inbox).
	Consumer jetstream.Consumer
	// Deliverer gets the messages: an *idem.Consumer.
	Deliverer idembroker.Deliverer
	// RetryDelay is how long a message to retry waits for its
	// redelivery; 0 means DefaultRetryDelay.
	RetryDelay time.Duration
	// OnError, if set, gets the errors that do not stop Run: a failed ack
	// (the message comes back and is answered as a duplicate) or a
	// delivery that decided nothing (it is redelivered).
	OnError func(error)
}

// Run consumes cfg.Consumer until ctx ends, one message at a time, and
// returns after the delivery in flight finished (it runs to its end, ctx's
// end does not interrupt it); messages pulled but not yet delivered are
// then handed back (Nak) for another consumer. It returns an error when the consumer cannot be
// read, the connection closed for instance. Run several for concurrency:
// the inbox lets one delivery of a message run at a time.
//
// An ack waits for the server's confirmation (DoubleAck), so Run knows
// the message left the consumer's pending list; one that fails is
// redelivered after AckWait and answered as a duplicate.
//
// The message's source is its stream's name; its id is its Nats-Msg-Id
// header, or its stream sequence without one. A message whose id the
// consumer refuses (idem.ErrInvalidMessage: empty, too long, not UTF-8, a
// control character) can never be processed: it is terminated with the
// reason (TermWithReason, which JetStream announces in its MSG_TERMINATED
// advisory, its dead letter) and reported, never redelivered. The delivery count the broker keeps is not used: attempts
// are counted in the inbox row.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Consumer == nil || cfg.Deliverer == nil {
		return errors.New("jetstream: Run needs a Consumer and a Deliverer")
	}
	if cfg.RetryDelay == 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	it, err := cfg.Consumer.Messages()
	if err != nil {
		return fmt.Errorf("jetstream: %w", err)
	}
	defer it.Stop()
	for {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err == nil {
			cfg.deliver(context.WithoutCancel(ctx), msg)
			continue
		}
		if ctx.Err() == nil {
			return fmt.Errorf("jetstream: %w", err)
		}
		break
	}
	// The messages pulled and not delivered go back at once, rather than
	// after AckWait.
	it.Drain()
	for {
		msg, err := it.Next(jetstream.NextMaxWait(drainWait))
		if err != nil {
			return nil
		}
		cfg.report(msg.Nak())
	}
}

// drainWait bounds the wait for the messages a stopping Run hands back.
const drainWait = 5 * time.Second

// deliver hands msg to the Deliverer and acknowledges it, or naks it with
// the retry delay.
func (cfg *Config) deliver(ctx context.Context, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		cfg.terminate(msg, fmt.Errorf("jetstream: a message without metadata: %w", err))
		return
	}
	id, ok := msgID(msg)
	if !ok {
		id = strconv.FormatUint(meta.Sequence.Stream, 10)
	}
	res, err := cfg.Deliverer.Deliver(ctx, idem.Message{Source: meta.Stream, ID: id, Body: msg.Data(),
		TraceContext: msg.Headers().Get("traceparent")})
	switch {
	case errors.Is(err, idem.ErrInvalidMessage):
		cfg.terminate(msg, fmt.Errorf("jetstream: message %d of %s, terminated: its %s: %w", meta.Sequence.Stream, meta.Stream, MsgIDHeader, err))
	case err != nil:
		cfg.report(fmt.Errorf("jetstream: message %s of %s: %w", id, meta.Stream, err))
		cfg.report(msg.NakWithDelay(cfg.RetryDelay))
	case res.Outcome.Ack():
		cfg.report(msg.DoubleAck(ctx))
	default:
		cfg.report(msg.NakWithDelay(cfg.RetryDelay))
	}
}

// msgID returns msg's Nats-Msg-Id, ok false when it has none. One sent
// empty is returned as such, for the consumer to refuse.
func msgID(msg jetstream.Msg) (id string, ok bool) {
	v := msg.Headers().Values(MsgIDHeader)
	if len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// report hands a non-nil err to OnError.
func (cfg *Config) report(err error) {
	if err != nil && cfg.OnError != nil {
		cfg.OnError(err)
	}
}

// terminate reports why msg cannot be taken and terminates it with that
// reason, which the server publishes in its MSG_TERMINATED advisory
// ($JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.<stream>.<consumer>), so
// whoever handles the dead message learns why without the service's logs.
// The reason never holds the message id (idemkey's errors name the
// header, not the value).
func (cfg *Config) terminate(msg jetstream.Msg, why error) {
	cfg.report(why)
	cfg.report(msg.TermWithReason(why.Error()))
}
