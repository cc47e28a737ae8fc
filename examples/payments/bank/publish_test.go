package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// An approved charge naming its payment is published to JetStream once,
// with the webhook's id as Nats-Msg-Id and the webhook's body; a declined
// one is not; a publish repeated because its mark was lost (a crash
// between the two) is dropped by the stream.
func TestSettlementPublishedToJetStream(t *testing.T) {
	url := os.Getenv("NATS_URL")
	if url == "" {
		url = nats.DefaultURL
	}
	if nc, err := nats.Connect(url, nats.Timeout(5*time.Second)); err != nil {
		t.Skipf("no NATS server at %s (%v): start one with JetStream, nats-server -js, or set NATS_URL", url, err)
	} else {
		nc.Close()
	}
	ctx := t.Context()
	pool := pgtest.Pool(t)
	b, err := newBank(ctx, pool, true)
	if err != nil {
		t.Fatal(err)
	}
	suffix := strings.ToUpper(rand.Text()[:10])
	stream, subject := "BANK_TEST_"+suffix, "bank-test."+suffix
	p, err := newSettlementPublisher(ctx, url, stream, subject, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.js.DeleteStream(context.Background(), stream); p.nc.Close() })

	approved, err := b.decide(ctx, "key-approved", chargeRequest{Amount: 500, Currency: "EUR", CardToken: "tok_1", Reference: 42})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.decide(ctx, "key-declined", chargeRequest{Amount: 500, Currency: "EUR", CardToken: "tok_declined", Reference: 43}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := p.publishDue(ctx, pool); err != nil {
			t.Fatal(err)
		}
	}
	// The mark lost: published again, dropped by the stream.
	if _, err := pool.Exec(ctx, `UPDATE bank_webhooks SET published_at = NULL`); err != nil {
		t.Fatal(err)
	}
	if err := p.publishDue(ctx, pool); err != nil {
		t.Fatal(err)
	}

	s, err := p.js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("the stream holds %d messages, want 1", info.State.Msgs)
	}
	msg, err := s.GetMsg(ctx, info.State.FirstSeq)
	if err != nil {
		t.Fatal(err)
	}
	var id, body string
	var settlements, unpublished int
	if err := pool.QueryRow(ctx, `SELECT min(id), min(body), count(*), count(*) FILTER (WHERE published_at IS NULL) FROM bank_webhooks`).
		Scan(&id, &body, &settlements, &unpublished); err != nil {
		t.Fatal(err)
	}
	if settlements != 1 {
		t.Fatalf("%d settlements enqueued, want 1 (the approved charge's)", settlements)
	}
	if want := fmt.Sprintf("msg_settle_%d", approved.ChargeID); id != want || msg.Header.Get(jetstream.MsgIDHeader) != want {
		t.Errorf("webhook %s published as %q, want both %s", id, msg.Header.Get(jetstream.MsgIDHeader), want)
	}
	if want := `{"type": "payment.settled", "payment_id": 42}`; body != want || string(msg.Data) != want {
		t.Errorf("webhook body %s published as %s, want both %s", body, msg.Data, want)
	}
	if unpublished != 0 {
		t.Errorf("%d settlements not marked published", unpublished)
	}
}
