package idem_test

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// Must show 7: as time moves (the database's view of the record, and the
// executor's fake clock that times its cached replays), a retry after
// retention gets operation-expired and runs nothing, before and after the
// sweeper made the record a tombstone; after the tombstone period the
// record is gone.
func TestRetentionAndTombstone(t *testing.T) {
	d := newDB(t)
	clock := idemtest.NewFakeClock(time.Now())
	c := orderContract()
	c.Retention = time.Hour
	c.Tombstone = 24 * time.Hour
	rec := &recorder{}
	var calls int
	exec, err := idem.NewExecutor(idem.Config{Pool: d.pool, Clock: clock, Observer: rec, Protocol: testProtocol()})
	if err != nil {
		t.Fatal(err)
	}
	h, err := idemimpl.NewHandler(exec, c, tenantScope, countCalls(&calls, createOrder))
	if err != nil {
		t.Fatal(err)
	}
	body := `{"customer":"c-1","amount":1}`
	ctx := context.Background()
	sweep := func(want idem.SweepResult) {
		t.Helper()
		got, err := exec.Sweep(ctx, idem.MaintainOptions{BatchSize: 10, MaxClockSkew: math.MaxInt64}) // the fake clock runs ahead of the database's

		if err != nil {
			t.Fatal(err)
		}
		got.Batches, got.LongestBatch, got.ClockSkew = 0, 0, 0
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sweep at %v (-want +got):\n%s", clock.Now(), diff)
		}
	}
	// later moves time d on: the minute left at each step keeps the
	// requests in between clear of the deadline on a busy machine.
	later := func(by time.Duration) {
		t.Helper()
		clock.Advance(by)
		if err := idemtest.Age(ctx, d.pool, "tenant-a", by); err != nil {
			t.Fatal(err)
		}
	}
	expired := func(when string) {
		t.Helper()
		r := post(h, "tenant-a", "old-1", body)
		if r.Status != http.StatusConflict || problemType(t, r) != idem.ProblemExpired {
			t.Fatalf("%s: status %d body %s, want 409 operation-expired", when, r.Status, r.Body)
		}
		if calls != 1 {
			t.Fatalf("%s: business ran %d times, want 1", when, calls)
		}
	}

	if r := post(h, "tenant-a", "old-1", body); r.Status != http.StatusCreated {
		t.Fatalf("first: status %d body %s", r.Status, r.Body)
	}
	later(time.Hour - time.Minute)
	sweep(idem.SweepResult{})
	if r := post(h, "tenant-a", "old-1", body); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("within retention: status %d body %s, want a replay", r.Status, r.Body)
	}
	later(time.Minute)
	expired("at the end of retention, not yet swept")
	sweep(idem.SweepResult{Tombstoned: 1})
	if n := d.count(t, `SELECT count(*) FROM idempotency_record WHERE state = 'tombstone'
		AND response_body IS NULL AND response_headers IS NULL AND response_status IS NULL`); n != 1 {
		t.Fatalf("%d compact tombstones, want 1", n)
	}
	expired("as a tombstone")
	later(24*time.Hour - time.Minute)
	sweep(idem.SweepResult{})
	expired("at the end of the tombstone period")
	later(time.Minute)
	sweep(idem.SweepResult{Deleted: 1})
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 0 {
		t.Errorf("%d records after the tombstone period, want none", n)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
	var sawExpired int
	for _, k := range rec.kinds() {
		if k == idem.EventExpired {
			sawExpired++
		}
	}
	if sawExpired != 3 {
		t.Errorf("%d expired events, want 3", sawExpired)
	}
}
