package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// testSecret is the receiver's secret in the tests.
const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// receiver is a settlement receiver that answers 503 to the first fail
// deliveries and 204 after, and keeps what it was sent.
type receiver struct {
	mu        sync.Mutex
	fail      int
	got       []delivery
	delivered chan struct{} // closed at the first 204
}

// delivery is one request the receiver got, its signature checked.
type delivery struct {
	id, body string
	signed   bool
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(testSecret, "whsec_"))
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp"), body)
	signed := req.Header.Get("webhook-signature") == "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, delivery{id: req.Header.Get("webhook-id"), body: string(body), signed: signed})
	if len(r.got) <= r.fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	if len(r.got) == r.fail+1 {
		close(r.delivered)
	}
}

// An approved charge naming its payment is followed by one signed
// settlement webhook, retried on the schedule after two 503s and not
// after the 204; a declined charge, a charge without a reference and a
// repeated key send none.
func TestSettlementWebhookRetriedUntil2xx(t *testing.T) {
	recv := &receiver{fail: 2, delivered: make(chan struct{})}
	hook := httptest.NewServer(recv)
	t.Cleanup(hook.Close)
	b, srv := newTestBank(t)
	b.settles = true
	sender, err := newWebhookSender(hook.URL, testSecret, "0s,10ms,10ms,10ms", 5*time.Second, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		`{"amount":1200,"currency":"EUR","card_token":"tok_1","reference":42}`,
		`{"amount":1200,"currency":"EUR","card_token":"tok_1","reference":42}`,
		`{"amount":1300,"currency":"EUR","card_token":"tok_declined","reference":43}`,
		`{"amount":1400,"currency":"EUR","card_token":"tok_1"}`,
	} {
		key := "k-" + body[11:15] // one key per amount: the second charge repeats the first
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/charges", bytes.NewReader([]byte(body)))
		req.Header.Set("Idempotency-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("charge %s: %d", body, resp.StatusCode)
		}
	}
	ctx := t.Context()
	for range 20 { // until the 204's attempt is recorded, a round at a time
		if err := sender.deliverDue(ctx, b.pool); err != nil {
			t.Fatal(err)
		}
		var state string
		if err := b.pool.QueryRow(ctx, `SELECT state FROM bank_webhooks`).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state != "pending" {
			break
		}
		time.Sleep(10 * time.Millisecond) // the schedule's wait, which the database's clock measures
	}
	<-recv.delivered
	var webhooks, attempts, last int
	var state string
	if err := b.pool.QueryRow(ctx, `SELECT count(*), min(state), (SELECT count(*) FROM bank_webhook_attempts),
		(SELECT status FROM bank_webhook_attempts ORDER BY attempt DESC LIMIT 1) FROM bank_webhooks`).Scan(&webhooks, &state, &attempts, &last); err != nil {
		t.Fatal(err)
	}
	if webhooks != 1 || state != "delivered" || attempts != 3 || last != http.StatusNoContent {
		t.Errorf("webhooks %d (%s), attempts %d, last status %d; want 1 delivered after 3 attempts, the last 204", webhooks, state, attempts, last)
	}
	if err := sender.deliverDue(ctx, b.pool); err != nil {
		t.Fatal(err)
	}
	recv.mu.Lock()
	defer recv.mu.Unlock()
	if len(recv.got) != 3 {
		t.Errorf("the receiver got %d deliveries, want 3 (none after the 204)", len(recv.got))
	}
	for i, d := range recv.got {
		if d.id != recv.got[0].id || !strings.HasPrefix(d.id, "msg_settle_") || d.body != `{"type": "payment.settled", "payment_id": 42}` || !d.signed {
			t.Errorf("delivery %d: %+v, want msg_settle_…, payment 42, signed, the same at each attempt", i, d)
		}
	}
}

// newWebhookSender refuses a secret that is not whsec_ and base64, and a
// schedule that is not durations.
func TestWebhookSenderFlags(t *testing.T) {
	for _, c := range []struct{ secret, schedule string }{
		{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "0s"},
		{"whsec_not base64!", "0s"},
		{testSecret, "0s,soon"},
		{testSecret, "0s,-1s"},
	} {
		if _, err := newWebhookSender("http://127.0.0.1:1/", c.secret, c.schedule, time.Second, slog.New(slog.DiscardHandler)); err == nil {
			t.Errorf("secret %q, schedule %q: accepted", c.secret, c.schedule)
		}
	}
}
