package idem_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// stockDDL is the table whose row locks the business functions below wait
// on or cross.
const stockDDL = `CREATE TABLE stock (sku text PRIMARY KEY, qty integer NOT NULL);
INSERT INTO stock VALUES ('SKU-1', 100), ('SKU-2', 100)`

// namedPool opens a pool of maxConns connections whose sessions carry a
// unique application_name, so awaitLockWaiter can see them block.
func namedPool(t *testing.T, d *db, maxConns int32) (*pgxpool.Pool, string) {
	t.Helper()
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "idem-" + hex.EncodeToString(b[:])
	return d.newPool(t, maxConns, func(cfg *pgxpool.Config) { cfg.ConnConfig.RuntimeParams["application_name"] = name }), name
}

// lockingOrder is createOrder after a row lock on SKU-1.
func lockingOrder(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
	if _, err := tx.Exec(ctx, "SELECT qty FROM stock WHERE sku = 'SKU-1' FOR UPDATE"); err != nil {
		return nil, err
	}
	return createOrder(ctx, tx, op, req)
}

// The reproduction: one order waits on a business lock, 12
// duplicates of it arrive, and another tenant's unrelated order must not
// notice. The duplicates wait in process for the first attempt, without a
// pool connection: the pool of 4 keeps exactly one connection in use (the
// first attempt's) while all 12 wait, and the other tenant's order runs
// as fast as without the storm. Once the lock is released, the first
// attempt commits and every duplicate replays it.
func TestDuplicateStormTakesNoConnections(t *testing.T) {
	d := newDB(t)
	if _, err := d.pool.Exec(context.Background(), stockDDL); err != nil {
		t.Fatal(err)
	}
	pool, app := namedPool(t, d, 4)
	const duplicates = 12
	waiting := make(chan struct{}, duplicates)
	rec := &recorder{}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Logger: slog.New(slog.DiscardHandler), Observer: rec, Protocol: testProtocol()})
	if err != nil {
		t.Fatal(err)
	}
	core.InstallFaults(exec, faults.Hooks{WaitingForFirst: func(context.Context, string) error {
		select { // each duplicate's first wait fills the barrier; later turns are not counted
		case waiting <- struct{}{}:
		default:
		}
		return nil
	}})
	c := orderContract()
	c.WaitTimeout = 30 * time.Second // the storm must outlast the measurements
	h, err := idemimpl.NewHandler(exec, c, tenantScope, func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		if op.Scope == "tenant-a" {
			return lockingOrder(ctx, tx, op, req)
		}
		return createOrder(ctx, tx, op, req)
	})
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	other := func(n int) []time.Duration {
		var ds []time.Duration
		for range n {
			sent++
			began := time.Now()
			r := post(h, "tenant-b", fmt.Sprintf("other-%d", sent), `{"customer":"b","amount":1}`)
			ds = append(ds, time.Since(began))
			if r.Status != http.StatusCreated {
				t.Fatalf("other tenant: status %d body %s", r.Status, r.Body)
			}
		}
		slices.Sort(ds)
		return ds
	}
	quiet := other(5)

	holder, err := d.pool.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Rollback(context.Background()) }()
	if _, err := holder.Exec(context.Background(), "SELECT qty FROM stock WHERE sku = 'SKU-1' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	body := `{"customer":"a","amount":7}`
	answers := make(chan idemtest.Response, duplicates+1)
	go func() { answers <- post(h, "tenant-a", "storm-1", body) }()
	awaitLockWaiter(t, d, app) // the first attempt waits on the business lock
	var wg sync.WaitGroup
	for range duplicates {
		wg.Go(func() { answers <- post(h, "tenant-a", "storm-1", body) })
	}
	for range duplicates {
		<-waiting
	}
	if n := pool.Stat().AcquiredConns(); n != 1 {
		t.Errorf("%d pool connections in use while %d duplicates wait, want 1 (the first attempt's)", n, duplicates)
	}
	storm := other(5)
	if n := pool.Stat().AcquiredConns(); n != 1 {
		t.Errorf("%d pool connections in use after the other tenant's orders, want 1", n)
	}
	t.Logf("other tenant's order latency, min/median/max of 5: without the storm %v/%v/%v, during it %v/%v/%v",
		quiet[0], quiet[2], quiet[4], storm[0], storm[2], storm[4])
	if storm[2] > time.Second {
		t.Errorf("the other tenant's median order took %v during the storm", storm[2])
	}

	if err := holder.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	var first []byte
	created, replayed := 0, 0
	for range duplicates + 1 {
		r := <-answers
		switch {
		case r.Status == http.StatusCreated && r.Header.Get("Idempotent-Replayed") == "true":
			replayed++
		case r.Status == http.StatusCreated:
			created++
		default:
			t.Errorf("answer: status %d body %s, want 201", r.Status, r.Body)
		}
		if first == nil {
			first = r.Body
		} else if !bytes.Equal(first, r.Body) {
			t.Errorf("answers differ: %s and %s", first, r.Body)
		}
	}
	if created != 1 || replayed != duplicates {
		t.Errorf("%d created and %d replayed, want 1 and %d", created, replayed, duplicates)
	}
	if n := d.count(t, "SELECT count(*) FROM orders WHERE tenant = 'tenant-a'"); n != 1 {
		t.Errorf("%d orders of tenant-a, want 1", n)
	}
	waited := 0
	for _, k := range rec.kinds() {
		if k == idem.EventWaited {
			waited++
		}
	}
	if waited != duplicates {
		t.Errorf("%d waited events, want one per duplicate (%d)", waited, duplicates)
	}
}

// Under concurrency reject a duplicate of an attempt this process runs is
// answered 409 with Retry-After at once, without touching the database.
func TestInProcessDuplicateUnderReject(t *testing.T) {
	d := newDB(t)
	pool := d.newPool(t, 1) // the first attempt holds the only connection
	c := orderContract()
	c.Concurrency = idemimpl.ConcurrencyReject
	hold := faults.NewHold()
	rec := &recorder{}
	h := newHandlerWithFaults(t, pool, c, idem.Config{Observer: rec}, faults.Hooks{AfterBusiness: hold.Hook}, createOrder)
	body := `{"customer":"c","amount":1}`
	first := make(chan idemtest.Response)
	go func() { first <- post(h, "tenant-a", "reject-1", body) }()
	<-hold.Reached()
	dup := post(h, "tenant-a", "reject-1", body)
	if dup.Status != http.StatusConflict || problemType(t, dup) != idem.ProblemInProgress || dup.Header.Get("Retry-After") != "1" {
		t.Errorf("duplicate: status %d Retry-After %q body %s, want 409 operation-in-progress with Retry-After 1", dup.Status, dup.Header.Get("Retry-After"), dup.Body)
	}
	hold.Release()
	if f := <-first; f.Status != http.StatusCreated {
		t.Fatalf("first: status %d body %s", f.Status, f.Body)
	}
	if got := rec.kinds(); !slices.Contains(got, idem.EventRejectInProgress) {
		t.Errorf("events %v, want a reject-in-progress", got)
	}
	if r := post(h, "tenant-a", "reject-1", body); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry after the first: status %d body %s, want a replay", r.Status, r.Body)
	}
}

// Pool acquisition is bounded: with every connection taken, a request is
// answered 503 temporarily-unavailable with Retry-After within the
// acquire timeout, observed as unavailable/saturated and logged at Warn;
// nothing is stored, and the same request succeeds once a connection is
// free.
func TestSaturatedPoolAnswers503(t *testing.T) {
	d := newDB(t)
	pool := d.newPool(t, 1)
	logs := &logCapture{}
	rec := &recorder{}
	h := newHandler(t, pool, orderContract(), idem.Config{Logger: slog.New(logs), Observer: rec, AcquireTimeout: 50 * time.Millisecond}, createOrder)
	taken, err := pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	r := post(h, "tenant-a", "saturated-1", `{"customer":"c","amount":1}`)
	took := time.Since(began)
	t.Logf("answered %d after %v with the pool saturated", r.Status, took)
	if r.Status != http.StatusServiceUnavailable || problemType(t, r) != idem.ProblemUnavailable {
		t.Fatalf("status %d body %s, want 503 temporarily-unavailable", r.Status, r.Body)
	}
	if got := r.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	if took > 5*time.Second {
		t.Errorf("took %v, want about the 50ms acquire timeout", took)
	}
	if w := logs.at(slog.LevelWarn); len(w) != 1 || w[0]["class"] != "saturated" {
		t.Errorf("Warn records %v, want one of class saturated", w)
	}
	if e := logs.at(slog.LevelError); len(e) != 0 {
		t.Errorf("Error records %v, want none", e)
	}
	if events := rec.all(); len(events) != 1 || events[0].Kind != idem.EventUnavailable || events[0].Class != idem.ClassSaturated {
		t.Errorf("events %+v, want one unavailable event of class saturated", events)
	}
	taken.Release()
	if r := post(h, "tenant-a", "saturated-1", `{"customer":"c","amount":1}`); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry with a free pool: status %d body %s, want a new 201", r.Status, r.Body)
	}
}

// Two business transactions that lock SKU-1 and SKU-2 in opposite orders
// deadlock; PostgreSQL aborts one (40P01). That one is rolled back, its
// key freed, answered 503 with Retry-After and logged at Warn, not 500;
// the other commits, and the loser's retry succeeds.
func TestDeadlockAnswers503(t *testing.T) {
	d := newDB(t)
	if _, err := d.pool.Exec(context.Background(), stockDDL); err != nil {
		t.Fatal(err)
	}
	logs := &logCapture{}
	rec := &recorder{}
	var cross sync.WaitGroup // both hold their first lock
	cross.Add(2)
	var mu sync.Mutex
	attempts := map[string]int{}
	h := newHandler(t, d.pool, orderContract(), idem.Config{Logger: slog.New(logs), Observer: rec},
		func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
			mu.Lock()
			attempts[op.Key]++
			firstTry := attempts[op.Key] == 1
			mu.Unlock()
			order := []string{"SKU-1", "SKU-2"}
			if op.Key == "cross-b" {
				order = []string{"SKU-2", "SKU-1"}
			}
			if _, err := tx.Exec(ctx, "SET LOCAL deadlock_timeout = '20ms'"); err != nil {
				return nil, err
			}
			for i, sku := range order {
				if _, err := tx.Exec(ctx, "UPDATE stock SET qty = qty - 1 WHERE sku = $1", sku); err != nil {
					return nil, fmt.Errorf("reserve %s: %w", sku, err)
				}
				if i == 0 && firstTry {
					cross.Done()
					cross.Wait()
				}
			}
			return createOrder(ctx, tx, op, req)
		})
	body := `{"customer":"c","amount":1}`
	answers := idemtest.Concurrently(2, func(i int) idemtest.Response {
		return post(h, "tenant-a", []string{"cross-a", "cross-b"}[i], body)
	})
	var loser string
	for i, r := range answers {
		key := []string{"cross-a", "cross-b"}[i]
		switch r.Status {
		case http.StatusCreated:
		case http.StatusServiceUnavailable:
			if problemType(t, r) != idem.ProblemUnavailable || r.Header.Get("Retry-After") != "1" {
				t.Errorf("%s: body %s Retry-After %q, want temporarily-unavailable with Retry-After 1", key, r.Body, r.Header.Get("Retry-After"))
			}
			loser = key
		default:
			t.Errorf("%s: status %d body %s, want 201 or 503", key, r.Status, r.Body)
		}
	}
	if loser == "" {
		t.Fatalf("no deadlock: answers %d and %d", answers[0].Status, answers[1].Status)
	}
	w := logs.at(slog.LevelWarn)
	if len(w) != 1 || w[0]["class"] != "transient" {
		t.Errorf("Warn records %v, want one of class transient", w)
	} else {
		t.Logf("the Warn record: %v", w[0])
	}
	if e := logs.at(slog.LevelError); len(e) != 0 {
		t.Errorf("Error records %v, want none", e)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record WHERE idempotency_key = $1", loser); n != 0 {
		t.Errorf("the loser's key holds %d records, want it freed", n)
	}
	if r := post(h, "tenant-a", loser, body); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the loser's retry: status %d body %s, want a new 201", r.Status, r.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 2 {
		t.Errorf("%d orders, want 2", n)
	}
}
