package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
)

// bankWebhookSecret is the secret the bank signs its settlements with.
const bankWebhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// signedSettlement is a settlement webhook as the bank sends it, signed
// here independently of the runtime's verifier: HMAC-SHA256 of
// id.timestamp.body under the secret's base64-decoded bytes.
func signedSettlement(t *testing.T, url, id, body, secret string, at time.Time) *http.Request {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", id, ts, body)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return req
}

// TestSettlementWebhookProcessedOnce: the generated receiver of the bank's
// settlements, delivered the same webhook-id 20 times at once and 20
// times in a row: one settlement committed, one settlement_email effect,
// 204 to all; the same id with another body is 422; a bad or old
// signature is 401 with nothing recorded.
func TestSettlementWebhookProcessedOnce(t *testing.T) {
	pool := newPaymentsDB(t).pool
	var paymentID int64
	if err := pool.QueryRow(t.Context(), `INSERT INTO payments (merchant, amount, currency, status) VALUES ('m', 1200, 'EUR', 'approved') RETURNING id`).Scan(&paymentID); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: "idempotency"})
	if err != nil {
		t.Fatal(err)
	}
	receiver, err := NewReceiveBankSettlementReceiver(exec, Service{}, bankWebhookSecret)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(receiver)
	t.Cleanup(srv.Close)

	body := fmt.Sprintf(`{"type": "payment.settled", "payment_id": %d}`, paymentID)
	send := func(id, body, secret string, at time.Time) int {
		resp, err := http.DefaultClient.Do(signedSettlement(t, srv.URL, id, body, secret, at))
		if err != nil {
			t.Error(err)
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	counts := func() (settled, effects, inbox int) {
		err := pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM payments WHERE settled_at IS NOT NULL),
			(SELECT count(*) FROM idempotency.idempotency_outbox WHERE effect = 'settlement_email'),
			(SELECT count(*) FROM idempotency.idempotency_inbox)`).Scan(&settled, &effects, &inbox)
		if err != nil {
			t.Fatal(err)
		}
		return settled, effects, inbox
	}

	// Refused before anything is recorded.
	for name, code := range map[string]int{
		"another secret": send("msg_settle_1", body, "whsec_c2VjcmV0LW9mLWFub3RoZXItZW5kcG9pbnQ=", time.Now()),
		"an hour old":    send("msg_settle_1", body, bankWebhookSecret, time.Now().Add(-time.Hour)),
	} {
		if code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, code)
		}
	}
	if s, e, i := counts(); s+e+i != 0 {
		t.Fatalf("after refused deliveries: settled %d, effects %d, inbox %d; want nothing", s, e, i)
	}

	start := make(chan struct{})
	codes := make([]int, 40)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			<-start
			codes[i] = send("msg_settle_1", body, bankWebhookSecret, time.Now())
		})
	}
	close(start)
	wg.Wait()
	for i := 20; i < 40; i++ {
		codes[i] = send("msg_settle_1", body, bankWebhookSecret, time.Now())
	}
	for i, code := range codes {
		if code != http.StatusNoContent {
			t.Errorf("delivery %d: %d, want 204", i, code)
		}
	}
	if code := send("msg_settle_1", `{"type": "payment.settled", "payment_id": 999}`, bankWebhookSecret, time.Now()); code != http.StatusUnprocessableEntity {
		t.Errorf("the same id with another body: %d, want 422", code)
	}
	if s, e, i := counts(); s != 1 || e != 1 || i != 1 {
		t.Errorf("settled %d, effects %d, inbox rows %d; want 1 each", s, e, i)
	}
}
