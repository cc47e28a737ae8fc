package idem_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// A request whose own deadline passes while its business step waits (on a
// lock another connection holds on the orders table) is answered 503
// deadline-exceeded with Retry-After, like the other failures a retry
// overcomes, not the 500 of a server bug: nothing of the attempt is
// stored, so the key is free, and the retry with the same key, once the
// lock is gone, runs once and is then replayed. The failure is logged at
// Warn with its class and its cause.
func TestDeadlineInTheBusinessStepIsRetryable(t *testing.T) {
	d := newDB(t)
	logs := &logCapture{}
	rec := &recorder{}
	reached := make(chan struct{}, 1)
	var calls int
	h := newHandler(t, d.pool, orderContract(), idem.Config{Logger: slog.New(logs), Observer: rec},
		func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
			calls++
			select { // the first attempt's signal; a run that should not be is counted in calls
			case reached <- struct{}{}:
			default:
			}
			return createOrder(ctx, tx, op, req)
		})
	barrier := lockTable(t, d, "orders")

	deadline := faults.NewDeadline(backstop)
	defer deadline.Pass()
	body := `{"customer":"c-1","amount":9}`
	req := idemtest.NewRequest(http.MethodPost, "/orders", "deadline-1", []byte(body)).WithContext(deadline)
	req.Header.Set("X-Tenant", "tenant-a")
	answered := make(chan idemtest.Response)
	go func() { answered <- idemtest.Serve(h, req) }()
	<-reached
	// The business step is in its INSERT, or about to be; either way it
	// cannot get past the lock before the deadline passes.
	deadline.Pass()
	r := <-answered

	if r.Status != http.StatusServiceUnavailable || problemType(t, r) != idem.ProblemDeadlineExceeded {
		t.Fatalf("status %d body %s, want 503 deadline-exceeded", r.Status, r.Body)
	}
	if got := r.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	if events := rec.all(); len(events) == 0 || events[len(events)-1].Kind != idem.EventRolledBack || events[len(events)-1].Class != idem.ClassTimeout {
		t.Errorf("events %+v, want the last a rollback of class timeout", events)
	}
	warns := logs.at(slog.LevelWarn)
	if len(warns) != 1 || warns[0]["class"] != string(idem.ClassTimeout) || !strings.Contains(warns[0]["error"], context.DeadlineExceeded.Error()) {
		t.Errorf("Warn records %v, want one of class timeout whose error names the deadline", warns)
	}
	if errs := logs.at(slog.LevelError); len(errs) != 0 {
		t.Errorf("Error records %v, want none: a deadline is not a server bug", errs)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
		t.Fatalf("%d records after the deadline passed, want the key free", n)
	}

	if err := barrier.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	retry := post(h, "tenant-a", "deadline-1", body) // its business step's signal waits in reached's buffer
	if retry.Status != http.StatusCreated || retry.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry: status %d replayed %q body %s, want a fresh 201", retry.Status, retry.Header.Get("Idempotent-Replayed"), retry.Body)
	}
	again := post(h, "tenant-a", "deadline-1", body)
	if !bytes.Equal(again.Body, retry.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("second retry: replayed %q body %s, want the first 201 replayed", again.Header.Get("Idempotent-Replayed"), again.Body)
	}
	if calls != 2 {
		t.Errorf("business ran %d times, want 2 (the attempt past its deadline, then the retry)", calls)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
}
