package idembroker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker/rabbitmq"
)

// The RabbitMQ adapter waits between dials an hour here, and still
// returns as soon as its context ends: the wait watches the context. The
// failed dial reaches OnError with its cause.
func TestRabbitMQRunStopsWhileWaitingToDial(t *testing.T) {
	refused := errors.New("dial tcp: connection refused")
	ctx, cancel := context.WithCancel(t.Context())
	var dials int
	var reported []error
	done := make(chan error, 1)
	go func() {
		done <- rabbitmq.Run(ctx, rabbitmq.Config{Queue: "q", Deliverer: nopDeliverer{},
			ReconnectDelay: time.Hour, MaxReconnectDelay: time.Hour,
			Dial: func() (*amqp.Connection, error) { dials++; return nil, refused },
			OnError: func(err error) {
				reported = append(reported, err)
				cancel()
			}})
	}()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if dials != 1 || len(reported) != 1 || !errors.Is(reported[0], refused) {
		t.Errorf("%d dials, reported %v; want 1 dial and its error", dials, reported)
	}
}

// nopDeliverer is a Deliverer no message reaches.
type nopDeliverer struct{}

func (nopDeliverer) Deliver(context.Context, idem.Message) (idem.DeliveryResult, error) {
	return idem.DeliveryResult{}, errors.New("nopDeliverer: no message was expected")
}
