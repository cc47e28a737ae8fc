package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
	"github.com/idemgen/idemgen/runtime/internal/stdwebhooks"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// The bank's signing secrets: the current one and the one it rotates to.
const (
	bankSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	bankNewSecret = "whsec_c2VjcmV0LW9mLWFub3RoZXItZW5kcG9pbnQ="
)

// settlement is the bank's webhook payload.
type settlement struct {
	Type      string `json:"type"`
	PaymentID string `json:"payment_id"`
}

func decodeSettlement(b []byte) (settlement, error) {
	var s settlement
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%w: %v", httpapi.ErrInvalidBody, err)
	}
	if s.PaymentID == "" {
		return s, fmt.Errorf("%w: /payment_id: required", httpapi.ErrInvalidBody)
	}
	return s, nil
}

// bankWebhooks is a service receiving the bank's settlement webhooks on
// one or more instances (pools), and the handler runs they counted.
type bankWebhooks struct {
	pool      *pgxpool.Pool
	receivers []*httpapi.WebhookReceiver
	runs      atomic.Int32
	fail      atomic.Bool // the handler fails while set
	// reached, when set, receives a signal as the handler starts, if
	// nothing waits in it already.
	reached chan struct{}
	// logs holds what the executors log, as JSON lines.
	logs logBuffer
}

// logBuffer is a buffer the executors' loggers write to from several
// goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// lines returns the JSON lines logged so far, decoded.
func (l *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.Lines(l.buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// newBankWebhooks returns the service on instances pools, verifying with
// secrets (bankSecret when none).
func newBankWebhooks(t *testing.T, instances int, secrets ...string) *bankWebhooks {
	t.Helper()
	cs := pgtest.ConnString(t)
	b := &bankWebhooks{}
	if len(secrets) == 0 {
		secrets = []string{bankSecret}
	}
	var keys []stdwebhooks.Secret
	for _, s := range secrets {
		k, err := stdwebhooks.ParseSecret(s)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	for i := range instances {
		pool, err := pgxpool.New(t.Context(), cs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if i == 0 {
			b.pool = pool
			if err := idem.Migrate(t.Context(), pool, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := pool.Exec(t.Context(), `CREATE TABLE settled (payment_id text PRIMARY KEY)`); err != nil {
				t.Fatal(err)
			}
		}
		exec, err := idem.NewExecutor(idem.Config{Pool: pool, Logger: slog.New(slog.NewJSONHandler(&b.logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		r, err := httpapi.NewWebhookReceiver(exec, httpapi.Webhook{Name: "bankSettlement", Source: "bank",
			Secrets: keys, MaxAttempts: 3, Retention: 76 * time.Hour}, decodeSettlement, b.settle)
		if err != nil {
			t.Fatal(err)
		}
		b.receivers = append(b.receivers, r)
	}
	return b
}

// settle marks the payment settled and enqueues the settlement email.
func (b *bankWebhooks) settle(ctx context.Context, tx pgx.Tx, op *core.Operation, s settlement) error {
	b.runs.Add(1)
	select {
	case b.reached <- struct{}{}:
	default:
	}
	if _, err := tx.Exec(ctx, `INSERT INTO settled VALUES ($1)`, s.PaymentID); err != nil {
		return err
	}
	if _, err := op.Enqueue(ctx, tx, core.Effect{Name: "settlement_email", OnUnknown: "retry", Payload: []byte(s.PaymentID)}); err != nil {
		return err
	}
	if b.fail.Load() {
		return errors.New("the ledger refused the settlement")
	}
	return nil
}

// delivery is one signed webhook request.
type delivery struct {
	id, body, secret string
	at               time.Time
}

func (d delivery) request(t *testing.T) *http.Request {
	t.Helper()
	secret := d.secret
	if secret == "" {
		secret = bankSecret
	}
	key, err := stdwebhooks.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	if d.at.IsZero() {
		d.at = time.Now()
	}
	ts := strconv.FormatInt(d.at.Unix(), 10)
	req := httptest.NewRequest(http.MethodPost, "/webhooks/bank", strings.NewReader(d.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(stdwebhooks.HeaderID, d.id)
	req.Header.Set(stdwebhooks.HeaderTimestamp, ts)
	req.Header.Set(stdwebhooks.HeaderSignature, stdwebhooks.SignatureHeader(key, d.id, ts, []byte(d.body)))
	return req
}

// send delivers d to the i-th instance.
func (b *bankWebhooks) send(t *testing.T, i int, d delivery) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	b.receivers[i%len(b.receivers)].ServeHTTP(rec, d.request(t))
	if rec.Code == http.StatusGone {
		t.Errorf("a webhook was answered 410 Gone, which makes a sender disable the endpoint")
	}
	return rec
}

// recorded returns the rows of the ledger, the outbox and the inbox.
func (b *bankWebhooks) recorded(t *testing.T) [3]int {
	t.Helper()
	var n [3]int
	if err := b.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM settled), (SELECT count(*) FROM idempotency_outbox),
		(SELECT count(*) FROM idempotency_inbox)`).Scan(&n[0], &n[1], &n[2]); err != nil {
		t.Fatal(err)
	}
	return n
}

const settledBody = `{"type": "payment.settled", "payment_id": "pay_1"}`

// TestWebhookDeliveredManyTimesCommitsOnce: the same webhook-id delivered
// 20 times at once across two instances, then 20 times in a row: one
// handler commit, one effect, 2xx to all.
func TestWebhookDeliveredManyTimesCommitsOnce(t *testing.T) {
	b := newBankWebhooks(t, 2)
	d := delivery{id: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", body: settledBody}
	start := make(chan struct{})
	codes := make([]int, 40)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			<-start
			codes[i] = b.send(t, i, d).Code
		})
	}
	close(start)
	wg.Wait()
	for i := 20; i < 40; i++ {
		codes[i] = b.send(t, i, d).Code
	}
	for i, code := range codes {
		if code != http.StatusNoContent {
			t.Errorf("delivery %d: %d, want 204", i, code)
		}
	}
	if got, want := b.recorded(t), [3]int{1, 1, 1}; got != want || b.runs.Load() != 1 {
		t.Errorf("settled, effects, inbox rows = %v, handler runs %d; want %v and 1", got, b.runs.Load(), want)
	}
}

// TestWebhookSameIDOtherBodyRefused: 422, and the first body's changes
// stand alone.
func TestWebhookSameIDOtherBodyRefused(t *testing.T) {
	b := newBankWebhooks(t, 1)
	if rec := b.send(t, 0, delivery{id: "msg_1", body: settledBody}); rec.Code != http.StatusNoContent {
		t.Fatalf("first delivery: %d %s", rec.Code, rec.Body)
	}
	rec := b.send(t, 0, delivery{id: "msg_1", body: `{"type": "payment.settled", "payment_id": "pay_2"}`})
	if rec.Code != http.StatusUnprocessableEntity || rec.Header().Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(rec.Body.String(), idem.ProblemFingerprint) {
		t.Errorf("same id, other body: %d %s %s, want 422 problem+json %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body, idem.ProblemFingerprint)
	}
	if got, want := b.recorded(t), [3]int{1, 1, 1}; got != want || b.runs.Load() != 1 {
		t.Errorf("settled, effects, inbox rows = %v, handler runs %d; want %v and 1", got, b.runs.Load(), want)
	}
}

// TestWebhookRefusedBeforeAnythingIsRecorded: a bad signature, an old or
// future timestamp, a tampered body are 401 problem+json; the handler
// never runs and the inbox stays empty. A body that does not decode is a
// 400 after the signature, also with nothing recorded.
func TestWebhookRefusedBeforeAnythingIsRecorded(t *testing.T) {
	b := newBankWebhooks(t, 1)
	for _, tc := range []struct {
		name string
		d    delivery
		req  func(*http.Request)
		want int
	}{
		{"another secret", delivery{id: "msg_1", body: settledBody, secret: bankNewSecret}, nil, http.StatusUnauthorized},
		{"six minutes old", delivery{id: "msg_1", body: settledBody, at: time.Now().Add(-6 * time.Minute)}, nil, http.StatusUnauthorized},
		{"six minutes ahead", delivery{id: "msg_1", body: settledBody, at: time.Now().Add(6 * time.Minute)}, nil, http.StatusUnauthorized},
		{"no signature", delivery{id: "msg_1", body: settledBody}, func(r *http.Request) { r.Header.Del(stdwebhooks.HeaderSignature) }, http.StatusUnauthorized},
		{"another id than signed", delivery{id: "msg_1", body: settledBody}, func(r *http.Request) { r.Header.Set(stdwebhooks.HeaderID, "msg_2") }, http.StatusUnauthorized},
		{"a body that does not decode", delivery{id: "msg_1", body: `{"type": "payment.settled"}`}, nil, http.StatusBadRequest},
		{"no id", delivery{id: "", body: settledBody}, nil, http.StatusBadRequest},
		{"an id of 256 bytes", delivery{id: strings.Repeat("m", 256), body: settledBody}, nil, http.StatusBadRequest},
		{"an id not UTF-8", delivery{id: "msg_\xff", body: settledBody}, nil, http.StatusBadRequest},
		{"an id with a tab", delivery{id: "msg\t1", body: settledBody}, nil, http.StatusBadRequest},
		{"GET", delivery{id: "msg_1", body: settledBody}, func(r *http.Request) { r.Method = http.MethodGet }, http.StatusMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.d.request(t)
			if tc.req != nil {
				tc.req(req)
			}
			rec := httptest.NewRecorder()
			b.receivers[0].ServeHTTP(rec, req)
			if rec.Code != tc.want || rec.Header().Get("Content-Type") != "application/problem+json" {
				t.Errorf("%d %s %s, want %d problem+json", rec.Code, rec.Header().Get("Content-Type"), rec.Body, tc.want)
			}
			if strings.HasPrefix(tc.name, "an id") && !strings.Contains(rec.Body.String(), stdwebhooks.HeaderID) {
				t.Errorf("%s, want a detail naming %s", rec.Body, stdwebhooks.HeaderID)
			}
		})
	}
	if got := b.recorded(t); got != [3]int{} || b.runs.Load() != 0 {
		t.Errorf("settled, effects, inbox rows = %v, handler runs %d; want nothing", got, b.runs.Load())
	}
}

// TestWebhookRotatedSecrets: during a rotation both secrets verify.
func TestWebhookRotatedSecrets(t *testing.T) {
	b := newBankWebhooks(t, 1, bankNewSecret, bankSecret)
	for i, secret := range []string{bankSecret, bankNewSecret} {
		body := fmt.Sprintf(`{"type": "payment.settled", "payment_id": "pay_%d"}`, i)
		if rec := b.send(t, 0, delivery{id: fmt.Sprint("msg_", i), body: body, secret: secret}); rec.Code != http.StatusNoContent {
			t.Errorf("signed with secret %d: %d %s, want 204", i, rec.Code, rec.Body)
		}
	}
}

// TestWebhookPoisonDeadLetters: a handler that keeps failing answers 500
// (the sender retries) with nothing kept, until the contract's attempts
// are spent; then 202, and the message stays dead.
func TestWebhookPoisonDeadLetters(t *testing.T) {
	b := newBankWebhooks(t, 1)
	b.fail.Store(true)
	d := delivery{id: "msg_poison", body: settledBody}
	var got []int
	for i := range 5 {
		got = append(got, b.send(t, i, d).Code)
	}
	if diff := cmp.Diff([]int{500, 500, 202, 202, 202}, got); diff != "" {
		t.Errorf("status codes (-want +got):\n%s", diff)
	}
	if got, want := b.recorded(t), [3]int{0, 0, 1}; got != want || b.runs.Load() != 3 {
		t.Errorf("settled, effects, inbox rows = %v, handler runs %d; want %v and 3", got, b.runs.Load(), want)
	}
}

// TestWebhookDeadlineIsRetryable: a delivery whose request deadline
// passes while its handler waits (on a lock another connection holds on
// the ledger) is answered 503 deadline-exceeded with Retry-After, not a
// 500: nothing is kept, no attempt is counted against the poison policy,
// the cause is logged, and the sender's next delivery is processed once.
func TestWebhookDeadlineIsRetryable(t *testing.T) {
	b := newBankWebhooks(t, 1)
	b.reached = make(chan struct{}, 1)
	barrier, err := b.pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = barrier.Rollback(t.Context()) }()
	if _, err := barrier.Exec(t.Context(), `LOCK TABLE settled IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	d := delivery{id: "msg_deadline", body: settledBody}
	deadline := faults.NewDeadline(time.Minute)
	defer deadline.Pass()
	answered := make(chan *httptest.ResponseRecorder)
	go func() {
		rec := httptest.NewRecorder()
		b.receivers[0].ServeHTTP(rec, d.request(t).WithContext(deadline))
		answered <- rec
	}()
	<-b.reached
	deadline.Pass() // the handler cannot get past the lock before this
	rec := <-answered

	var p struct{ Type string }
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusServiceUnavailable || p.Type != httpapi.ProblemDeadlineExceeded || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("answered %d Retry-After %q %s, want 503 deadline-exceeded with Retry-After 1", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	// The 503 is logged with its cause, at Warn: the sender retries it.
	var logged bool
	for _, l := range b.logs.lines(t) {
		if l["level"] == "ERROR" {
			t.Errorf("logged at Error: %v", l)
		}
		if l["msg"] == "idem: webhook not processed" {
			logged = true
			if l["level"] != "WARN" || l["status"] != float64(http.StatusServiceUnavailable) || l["webhook"] != "bankSettlement" ||
				!strings.Contains(fmt.Sprint(l["error"]), context.DeadlineExceeded.Error()) {
				t.Errorf("logged %v, want a Warn line of webhook bankSettlement, status 503 and the deadline as the cause", l)
			}
		}
	}
	if !logged {
		t.Errorf("the 503 was not logged: %v", b.logs.lines(t))
	}
	if err := barrier.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := b.recorded(t), [3]int{0, 0, 0}; got != want {
		t.Errorf("settled, effects, inbox rows = %v after the deadline, want %v: nothing kept, no attempt counted", got, want)
	}
	if code := b.send(t, 0, d).Code; code != http.StatusNoContent {
		t.Fatalf("the redelivery: %d, want 204", code)
	}
	if code := b.send(t, 0, d).Code; code != http.StatusNoContent {
		t.Fatalf("a duplicate: %d, want 204", code)
	}
	if got, want := b.recorded(t), [3]int{1, 1, 1}; got != want || b.runs.Load() != 2 {
		t.Errorf("settled, effects, inbox rows = %v, handler runs %d; want %v and 2", got, b.runs.Load(), want)
	}
}
