package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The JetStream subject and stream the bank publishes its settlements to
// (-nats-url) by default.
const (
	settlementSubject = "bank.settlements"
	settlementStream  = "BANK_SETTLEMENTS"
)

// settlementPublisher publishes the bank's settlements to JetStream, each
// with its webhook's id as Nats-Msg-Id, so that the message and the
// webhook name one settlement alike and a publish repeated within the
// stream's duplicate window lands once.
type settlementPublisher struct {
	subject string
	nc      *nats.Conn
	js      jetstream.JetStream
	log     *slog.Logger
}

// newSettlementPublisher connects to url and creates the stream of
// subject when it is missing.
func newSettlementPublisher(ctx context.Context, url, stream, subject string, log *slog.Logger) (*settlementPublisher, error) {
	nc, err := nats.Connect(url, nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("-nats-url: %w", err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		_, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: stream,
			Subjects: []string{subject}, Storage: jetstream.FileStorage})
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("the stream %s: %w", stream, err)
	}
	return &settlementPublisher{subject: subject, nc: nc, js: js, log: log}, nil
}

// run publishes the settlements not yet published until ctx ends, then
// closes the connection.
func (p *settlementPublisher) run(ctx context.Context, pool *pgxpool.Pool) {
	defer p.nc.Close()
	poll(ctx, p.log, "bank settlements to JetStream", func() error { return p.publishDue(ctx, pool) })
}

// publishDue publishes each settlement not yet published and marks it
// once JetStream acknowledged it. A crash between the two publishes it
// again: the stream drops it within its duplicate window, and the
// consumer's inbox after.
func (p *settlementPublisher) publishDue(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, `SELECT id, body FROM bank_webhooks WHERE published_at IS NULL ORDER BY id LIMIT 100`)
	if err != nil {
		return err
	}
	due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dueWebhook, error) {
		var w dueWebhook
		return w, r.Scan(&w.id, &w.body)
	})
	if err != nil {
		return err
	}
	for _, w := range due {
		msg := nats.NewMsg(p.subject)
		msg.Header.Set(jetstream.MsgIDHeader, w.id)
		msg.Data = []byte(w.body)
		if _, err := p.js.PublishMsg(ctx, msg); err != nil {
			return fmt.Errorf("publishing %s: %w", w.id, err)
		}
		if _, err := pool.Exec(ctx, `UPDATE bank_webhooks SET published_at = now() WHERE id = $1`, w.id); err != nil {
			return errors.Join(fmt.Errorf("published %s, not marked", w.id), err)
		}
		p.log.Info("bank settlement published", "id", w.id, "subject", p.subject)
	}
	return nil
}
