package api

import (
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// settlementKills is how many service processes are killed while they
// hold the bank's settlement.
const settlementKills = 3

// settlementSchedule is the bank's retry schedule in the test: at once,
// then every 200 ms for 40 s.
var settlementSchedule = "0s" + strings.Repeat(",200ms", 200)

// serviceFront is the fixed address the bank sends its webhooks to, in
// front of whichever service process runs: with none it answers 502, as a
// load balancer would, and the bank retries. It signals the first 2xx.
type serviceFront struct {
	mu        sync.Mutex
	target    *httputil.ReverseProxy // nil: no service runs
	requests  int
	succeeded int
	ok        chan struct{} // closed at the first 2xx
}

func (f *serviceFront) serve(addr string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if addr == "" {
		f.target = nil
		return
	}
	f.target = httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: addr})
	f.target.ErrorLog = log.New(io.Discard, "", 0) // a killed process is expected
	f.target.ModifyResponse = func(r *http.Response) error {
		if r.StatusCode/100 == 2 {
			f.mu.Lock()
			if f.succeeded++; f.succeeded == 1 {
				close(f.ok)
			}
			f.mu.Unlock()
		}
		return nil
	}
}

func (f *serviceFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	target := f.target
	f.mu.Unlock()
	if target == nil {
		http.Error(w, "no service", http.StatusBadGateway)
		return
	}
	target.ServeHTTP(w, r)
}

// The bank simulator (a process) sends the settlement webhook of an
// approved payment itself, signed, to a service process that is killed
// with SIGKILL while it holds the settlement, its changes made and its
// effect enqueued but not committed, settlementKills times in a row; a
// last process takes it: the payment is settled once, with one
// settlement_email effect and one processed inbox row, the bank's
// webhook is delivered at its first 2xx and the bank sends nothing after
// it (its attempts are the front's requests, the last one the 2xx).
func TestBankSettlementDeliveredOnceThroughKills(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the service and the bank as processes")
	}
	db := newPaymentsDB(t)
	front := &serviceFront{ok: make(chan struct{})}
	hooks := httptest.NewServer(front)
	t.Cleanup(hooks.Close)
	bankURL := startBank(t, db, "-webhook-url", hooks.URL+"/webhooks/bank", "-webhook-secret", bankWebhookSecret,
		"-webhook-schedule", settlementSchedule)

	payer := startService(t, serviceConfig{Database: db.url, BankURL: bankURL, Name: "payer"})
	a, err := payer.pay(t.Context(), "pay-settled", 1500, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paid Payment
	if err := json.Unmarshal([]byte(a.Body), &paid); a.Status != http.StatusCreated || err != nil || paid.Status != "approved" {
		t.Fatalf("POST /payments: %d %s, want 201 approved", a.Status, a.Body)
	}
	payer.kill()

	var webhookID string
	for i := range settlementKills {
		p := startService(t, serviceConfig{Database: db.url, BankURL: bankURL, Name: "killed", WebhookSecret: bankWebhookSecret,
			StopSettlements: true})
		front.serve(p.addr)
		said := p.waitSaid(t, 1)[0]
		id, ok := strings.CutPrefix(said, "reached "+stopSettlementUnsaved+" ")
		if !ok || (webhookID != "" && id != webhookID) {
			t.Fatalf("kill %d: the process said %q, want the settlement %s held", i+1, said, webhookID)
		}
		webhookID = id
		front.serve("")
		p.kill()
	}
	last := startService(t, serviceConfig{Database: db.url, BankURL: bankURL, Name: "last", WebhookSecret: bankWebhookSecret})
	front.serve(last.addr)
	<-front.ok
	db.waitWebhookDecided(t, webhookID)

	if n := db.count(t, `SELECT count(*) FROM payments WHERE id = $1 AND settled_at IS NOT NULL`, paid.ID); n != 1 {
		t.Errorf("payment %d settled: %d, want 1", paid.ID, n)
	}
	if n := db.count(t, `SELECT count(*) FROM idempotency.idempotency_outbox WHERE effect = 'settlement_email'`); n != 1 {
		t.Errorf("%d settlement_email effects, want 1", n)
	}
	if n := db.count(t, `SELECT count(*) FROM idempotency.idempotency_inbox WHERE message_id = $1 AND state = 'processed'`, webhookID); n != 1 {
		t.Errorf("%d processed inbox rows of %s, want 1", n, webhookID)
	}
	var state string
	var attempts, lastStatus, succeeded int
	if err := db.pool.QueryRow(t.Context(), `SELECT w.state, w.attempts,
		(SELECT status FROM bank_webhook_attempts WHERE webhook_id = w.id ORDER BY attempt DESC LIMIT 1),
		(SELECT count(*) FROM bank_webhook_attempts WHERE webhook_id = w.id AND status BETWEEN 200 AND 299)
		FROM bank_webhooks w WHERE w.id = $1`, webhookID).Scan(&state, &attempts, &lastStatus, &succeeded); err != nil {
		t.Fatal(err)
	}
	front.mu.Lock()
	requests := front.requests
	front.mu.Unlock()
	if state != "delivered" || succeeded != 1 || lastStatus/100 != 2 || attempts != requests || attempts < settlementKills+1 {
		t.Errorf("the bank's webhook: %s after %d attempts (%d 2xx, the last %d); the front had %d requests; want delivered, its last attempt the only 2xx, every attempt one request, at least %d",
			state, attempts, succeeded, lastStatus, requests, settlementKills+1)
	}
	t.Logf("settled payment %d through %d kills: the bank made %d attempts", paid.ID, settlementKills, attempts)
}

// waitWebhookDecided waits until the bank has recorded the end of the
// webhook id's deliveries (delivered or failed), on its own schedule.
func (db *paymentsDB) waitWebhookDecided(t *testing.T, id string) {
	t.Helper()
	conn, err := db.pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// The bank's update of the row is what ends it; poll it at the bank's
	// own pace, bounded by the test's deadline.
	for {
		var state string
		if err := conn.QueryRow(t.Context(), `SELECT state FROM bank_webhooks WHERE id = $1`, id).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state != "pending" {
			return
		}
		if _, err := conn.Exec(t.Context(), `SELECT pg_sleep(0.05)`); err != nil {
			t.Fatal(err)
		}
	}
}
