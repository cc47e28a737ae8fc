// Package idembroker holds what the broker adapters of the idempotent
// consumer share: each adapter (jetstream, rabbitmq, kafka) is a package
// of its own, so a service links only the broker client it uses, and
// brokertest is the suite every adapter passes.
//
// An adapter takes a message from its broker, names it by the broker's
// identity of the message (never a hash of its body) and its source (the
// stream, queue or topic), hands it to a Deliverer (an *idem.Consumer) and
// acknowledges it only after Deliver returned an outcome whose Ack is
// true: the inbox row and the handler's changes have committed, or the
// message is dead or refused. A Retry outcome or an error (nothing was
// decided) rejects that one delivery for a later redelivery, except
// idem.ErrInvalidMessage: a message whose id the consumer refuses (empty,
// longer than the contract's key.max-length, not UTF-8, a control
// character) can never be processed, so the adapter drops it, reported
// and never redelivered: dead-lettered with the reason where its broker
// can (RabbitMQ publishes it to the adapter's DeadLetter exchange with a
// reason header, or else rejects it to the queue's dead-letter exchange;
// JetStream terminates it with the reason) and skipped where it cannot
// (Kafka commits past it). The broker's
// own delivery counters are hints only: attempts are counted in the inbox
// row.
package idembroker

import (
	"context"

	"github.com/idemgen/idemgen/runtime/idem"
)

// Deliverer is what an adapter hands its messages to: an *idem.Consumer,
// or a wrapper of one (brokertest wraps it to crash between a commit and
// its acknowledgement).
type Deliverer interface {
	Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error)
}
