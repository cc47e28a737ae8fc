package idem_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// ExampleNewConsumer consumes a message three times: the handler's
// changes, and the effect it enqueues, commit once. A broker adapter acks
// when the outcome's Ack says so.
func ExampleNewConsumer() {
	ctx := context.Background()
	pool, done := pgtest.ExamplePool()
	defer done()
	if err := idem.Migrate(ctx, pool, "idempotency"); err != nil {
		panic(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE settled (payment_id text PRIMARY KEY)`); err != nil {
		panic(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: "idempotency"})
	if err != nil {
		panic(err)
	}
	settle, err := idem.NewConsumer(exec, idem.ConsumerConfig{
		Name:        "settle",
		MaxAttempts: 5,
		Retention:   76 * time.Hour, // beyond the sender's retry horizon
		Handler: func(ctx context.Context, tx pgx.Tx, d *idem.Delivery) error {
			if _, err := tx.Exec(ctx, `INSERT INTO settled VALUES ('p_1')`); err != nil {
				return err
			}
			_, err := d.Enqueue(ctx, tx, "settlement_email", "retry", d.Message.Body)
			return err
		},
	})
	if err != nil {
		panic(err)
	}
	for range 3 {
		res, err := settle.Deliver(ctx, idem.Message{Source: "bank", ID: "msg_2Kx", Body: []byte(`{"payment_id":"p_1"}`)})
		if err != nil {
			panic(err) // nothing decided: leave the message to its redelivery
		}
		fmt.Println(res.Outcome, "ack:", res.Outcome.Ack())
	}
	// Output:
	// processed ack: true
	// duplicate ack: true
	// duplicate ack: true
}
