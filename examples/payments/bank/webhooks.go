package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// webhookSchema is the bank's outbox of settlements: one row per
// approved charge that named its payment (written in the charge's
// transaction), sent as a webhook and published to JetStream, and one row
// per webhook delivery attempt.
const webhookSchema = `
SELECT pg_advisory_lock(4242);
ALTER TABLE bank_decisions ADD COLUMN IF NOT EXISTS reference bigint;
CREATE TABLE IF NOT EXISTS bank_webhooks (
    id           text PRIMARY KEY,
    body         text NOT NULL,
    state        text NOT NULL DEFAULT 'pending', -- pending, delivered or failed (schedule spent)
    attempts     integer NOT NULL DEFAULT 0,
    next_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at timestamptz
);
CREATE TABLE IF NOT EXISTS bank_webhook_attempts (
    webhook_id text NOT NULL,
    attempt    integer NOT NULL,
    status     integer NOT NULL, -- the receiver's answer; 0 when none came
    error      text NOT NULL,
    sent_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (webhook_id, attempt)
);
-- When the settlement was published to JetStream (-nats-url): the same
-- outbox row, a second way out.
ALTER TABLE bank_webhooks ADD COLUMN IF NOT EXISTS published_at timestamptz;
SELECT pg_advisory_unlock(4242);`

// DefaultWebhookSchedule is the bank's retry schedule: the Standard
// Webhooks example schedule (immediately, 5 s, 5 min, 30 min, 2 h, 5 h,
// 10 h, 10 h) shortened for a demonstration.
const DefaultWebhookSchedule = "0s,100ms,1s,5s,30s,2m,5m,10m"

// webhookPoll is how often the sender looks for webhooks that are due.
const webhookPoll = 50 * time.Millisecond

// webhookSender delivers the bank's settlement webhooks, Standard Webhooks
// signed, retrying each on its schedule until the receiver answers 2xx.
type webhookSender struct {
	url      string          // the receiver, such as http://127.0.0.1:8080/webhooks/bank
	key      []byte          // the secret's bytes
	schedule []time.Duration // the wait before each attempt; its length is the attempts
	client   *http.Client
	log      *slog.Logger
}

// newWebhookSender returns the sender to url signing with secret (whsec_
// and base64) on schedule (comma-separated durations, the first attempt's
// wait first), each attempt bounded by timeout.
func newWebhookSender(url, secret, schedule string, timeout time.Duration, log *slog.Logger) (*webhookSender, error) {
	encoded, ok := strings.CutPrefix(secret, "whsec_")
	key, err := base64.StdEncoding.DecodeString(encoded)
	if !ok || err != nil || len(key) == 0 {
		return nil, errors.New("-webhook-secret: want whsec_ and the secret in base64")
	}
	s := &webhookSender{url: url, key: key, client: &http.Client{Timeout: timeout}, log: log}
	for field := range strings.SplitSeq(schedule, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(field))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("-webhook-schedule: %q: want a duration of 0 or more", field)
		}
		s.schedule = append(s.schedule, d)
	}
	return s, nil
}

// enqueueSettlement writes, in the charge's transaction, the settlement webhook of
// payment reference, charged as chargeID: its id is stable across
// retries, its body the same at each.
func enqueueSettlement(ctx context.Context, tx pgx.Tx, chargeID, reference int64) error {
	_, err := tx.Exec(ctx, `INSERT INTO bank_webhooks (id, body) VALUES ($1, $2)`,
		fmt.Sprintf("msg_settle_%d", chargeID), fmt.Sprintf(`{"type": "payment.settled", "payment_id": %d}`, reference))
	return err
}

// run delivers the due webhooks of pool until ctx ends.
func (s *webhookSender) run(ctx context.Context, pool *pgxpool.Pool) {
	poll(ctx, s.log, "bank webhooks", func() error { return s.deliverDue(ctx, pool) })
}

// poll calls work every webhookPoll until ctx ends, logging its errors as
// what's.
func poll(ctx context.Context, log *slog.Logger, what string, work func() error) {
	t := time.NewTicker(webhookPoll)
	defer t.Stop()
	for {
		if err := work(); err != nil && ctx.Err() == nil {
			log.Warn(what, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// dueWebhook is a webhook whose next attempt is due.
type dueWebhook struct {
	id       string
	body     string
	attempts int
}

// deliverDue makes the next attempt of every webhook that is due.
func (s *webhookSender) deliverDue(ctx context.Context, pool *pgxpool.Pool) error {
	rows, err := pool.Query(ctx, `SELECT id, body, attempts FROM bank_webhooks WHERE state = 'pending' AND next_at <= now() ORDER BY next_at LIMIT 100`)
	if err != nil {
		return err
	}
	due, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (dueWebhook, error) {
		var w dueWebhook
		return w, r.Scan(&w.id, &w.body, &w.attempts)
	})
	if err != nil {
		return err
	}
	for _, w := range due {
		if err := s.attempt(ctx, pool, w); err != nil {
			return err
		}
	}
	return nil
}

// attempt sends w once and records the attempt and what follows: delivered
// on a 2xx, else the next attempt after the schedule's wait, or failed
// when the schedule is spent.
func (s *webhookSender) attempt(ctx context.Context, pool *pgxpool.Pool, w dueWebhook) error {
	status, sendErr := s.send(ctx, w)
	if ctx.Err() != nil {
		return nil // not an attempt of the receiver's: made again at the next start
	}
	n := w.attempts + 1
	state, wait := "pending", time.Duration(0)
	switch {
	case status >= 200 && status < 300:
		state = "delivered"
	case n >= len(s.schedule):
		state = "failed"
	default:
		wait = s.schedule[n]
	}
	errText := ""
	if sendErr != nil {
		errText = sendErr.Error()
	}
	s.log.Info("bank webhook attempt", "id", w.id, "attempt", n, "status", status, "state", state, "err", errText)
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO bank_webhook_attempts (webhook_id, attempt, status, error) VALUES ($1, $2, $3, $4)`,
			w.id, n, status, errText); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE bank_webhooks SET attempts = $2, state = $3,
    next_at = now() + make_interval(secs => $4::float8),
    delivered_at = CASE WHEN $3 = 'delivered' THEN now() END
WHERE id = $1`, w.id, n, state, wait.Seconds())
		return err
	})
}

// send posts w signed for this attempt and returns the receiver's status,
// 0 when none came.
func (s *webhookSender) send(ctx context.Context, w dueWebhook) (int, error) {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, s.key)
	fmt.Fprintf(mac, "%s.%s.%s", w.id, ts, w.body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader([]byte(w.body)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", w.id)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("the receiver answered %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}
