package idemimpl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/defaults"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// Broker is the contract of a generated broker consumer: a webhooks entry
// whose x-idempotency block names a broker. Name names the consumer,
// Source scopes its keys, KeyPointer is the JSON pointer of the body
// member holding the key (a string or an integer; empty keys a message by
// the broker's message id) and KeyMaxLength bounds it; MaxAttempts,
// Retention and WaitTimeout are the consumer's (idem.ConsumerConfig).
type Broker struct {
	Name         string
	Source       string
	KeyPointer   string
	KeyMaxLength int
	MaxAttempts  int
	Retention    time.Duration
	WaitTimeout  time.Duration
}

// BrokerConsumer is a generated broker consumer: the *idem.Consumer its
// contract declares, whose Deliver names each message by the contract's
// source and key before the inbox sees it. A broker adapter
// (runtime/idembroker/jetstream, rabbitmq or kafka) hands it messages.
type BrokerConsumer struct {
	*idem.Consumer
	contract Broker
}

// NewBrokerConsumer returns the consumer of b run by exec, decoding each
// message's body with decode and handling it with fn. A body that decode
// refuses, or that lacks b's key, fails its delivery: the attempt is
// counted and the message is dead-lettered after b.MaxAttempts.
func NewBrokerConsumer[T any](exec *idem.Executor, b Broker, decode func([]byte) (T, error), fn WebhookFunc[T]) (*BrokerConsumer, error) {
	switch {
	case exec == nil:
		return nil, errNoExecutor
	case decode == nil || fn == nil:
		return nil, errors.New("idem: a broker consumer needs a decoder and a handler")
	case b.Source == "":
		return nil, fmt.Errorf("idem: broker consumer %s without a source", b.Name)
	}
	if b.KeyMaxLength == 0 {
		b.KeyMaxLength = defaults.KeyMaxLength
	}
	handle := func(ctx context.Context, tx pgx.Tx, d *idem.Delivery) error {
		if b.KeyPointer != "" {
			if _, err := b.key(d.Message.Body); err != nil {
				return fmt.Errorf("message %s: %w", d.Message.ID, err)
			}
		}
		payload, err := decode(d.Message.Body)
		if err != nil {
			return fmt.Errorf("message %s: %w", d.Message.ID, err)
		}
		return fn(ctx, tx, core.OperationOf(d), payload)
	}
	c, err := idem.NewConsumer(exec, idem.ConsumerConfig{Name: b.Name, MaxAttempts: b.MaxAttempts,
		Retention: b.Retention, WaitTimeout: b.WaitTimeout, MaxIDLength: b.KeyMaxLength, Handler: handle})
	if err != nil {
		return nil, err
	}
	return &BrokerConsumer{Consumer: c, contract: b}, nil
}

// Deliver hands m to the consumer under the contract's source and, when
// the contract keys messages by a body member, that member's value. A
// body without a usable key keeps the broker's id: its handler fails it.
// A broker's id that is empty, longer than the contract's key.max-length,
// not UTF-8 or holds a control character is refused like a body's key:
// the error wraps idem.ErrInvalidMessage and idem.ErrKeyMalformed, the
// handler does not run and nothing is kept (the adapter drops the
// message; see runtime/idembroker).
func (c *BrokerConsumer) Deliver(ctx context.Context, m idem.Message) (idem.DeliveryResult, error) {
	m.Source = c.contract.Source
	if c.contract.KeyPointer != "" {
		if key, err := c.contract.key(m.Body); err == nil {
			m.ID = key
		}
	}
	return c.Consumer.Deliver(ctx, m)
}

// key returns the key body holds at the contract's pointer.
func (b Broker) key(body []byte) (string, error) {
	return httpapi.MessageKey(body, httpapi.KeySpec{BodyPointer: b.KeyPointer, MaxLength: b.KeyMaxLength})
}
