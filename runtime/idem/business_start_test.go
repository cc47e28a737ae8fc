package idem_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// A duplicate's business function never starts: 64 goroutines over 4
// executors, each on a pool of its own, send one key; the business
// function counts its starts before it does anything else. Every round
// starts it exactly once, and all 64 answers are the same response. It
// runs on the protocol protocolEnv names (TestMain runs both).
func TestDuplicateNeverStartsTheBusiness(t *testing.T) {
	duplicatesStartOnce(t, idem.Config{Protocol: testProtocol()})
}

// Under a pool whose sessions default to REPEATABLE READ, ProtocolAuto
// takes claim-first (the advisory recheck would read the snapshot taken
// before the lock wait and let a waiting duplicate run), and a duplicate's
// business function still never starts. A duplicate that waited on the
// claim row meets a serialization failure there, claims again in a new
// transaction and replays, as under READ COMMITTED.
func TestAutoProtocolUnderRepeatableRead(t *testing.T) {
	duplicatesStartOnce(t, idem.Config{}, func(pc *pgxpool.Config) {
		pc.ConnConfig.RuntimeParams["default_transaction_isolation"] = "repeatable read"
	})
}

// duplicatesStartOnce sends one key from 64 goroutines over 4 executors
// made with cfg, each on a pool of its own made with configure, for 20
// rounds, and fails unless every round starts the business function once
// and answers all 64 alike.
func duplicatesStartOnce(t *testing.T, cfg idem.Config, configure ...func(*pgxpool.Config)) {
	const (
		rounds     = 20
		goroutines = 64
		pools      = 4
	)
	d := newDB(t)
	c := orderContract()
	c.WaitTimeout = time.Minute // exactly-once is the point; a loaded machine must not turn waits into 409s
	var starts atomic.Int64
	counting := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		starts.Add(1)
		return createOrder(ctx, tx, op, req)
	}
	handlers := make([]http.Handler, pools)
	for i := range handlers {
		handlers[i] = newHandler(t, d.newPool(t, 8, configure...), c, cfg, counting)
	}
	for round := range rounds {
		starts.Store(0)
		key := fmt.Sprintf("start-%03d", round)
		got := idemtest.Concurrently(goroutines, func(i int) idemtest.Response {
			return post(handlers[i%pools], "tenant-a", key, benchBody)
		})
		if n := starts.Load(); n != 1 {
			t.Fatalf("round %d: the business function started %d times, want once", round, n)
		}
		for i, r := range got {
			if r.Status != http.StatusCreated || !bytes.Equal(r.Body, got[0].Body) ||
				r.Header.Get("Location") != got[0].Header.Get("Location") {
				t.Fatalf("round %d goroutine %d: status %d Location %q body %s, want 201 %q %s",
					round, i, r.Status, r.Header.Get("Location"), r.Body, got[0].Header.Get("Location"), got[0].Body)
			}
		}
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != rounds {
		t.Errorf("%d orders, want %d", n, rounds)
	}
}

// The record's primary key is the final arbiter under the advisory
// protocol: an instance that runs claim-first (a mixed deployment, which
// Config.Protocol warns against) does not wait for the advisory lock, so
// both run the business function; the one that commits second meets the
// first one's record at its INSERT, is rolled back, business and all, and
// answers the first one's response as a replay, never a 500.
func TestRecordCommittedBehindTheLockIsReplayed(t *testing.T) {
	d := newDB(t)
	inBusiness, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the pools close, should the test stop early
	held := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		close(inBusiness)
		<-release
		return createOrder(ctx, tx, op, req)
	}
	advisory := newHandler(t, d.newPool(t, 2), orderContract(), idem.Config{Protocol: idem.ProtocolAdvisory}, held)
	claimFirst := newHandler(t, d.newPool(t, 2), orderContract(), idem.Config{Protocol: idem.ProtocolClaimFirst}, createOrder)

	done := make(chan idemtest.Response)
	go func() { done <- post(advisory, "tenant-a", "arbiter-1", benchBody) }()
	<-inBusiness // the advisory attempt holds the key's lock and runs
	other := post(claimFirst, "tenant-a", "arbiter-1", benchBody)
	if other.Status != http.StatusCreated || other.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("claim-first attempt: status %d replayed %q body %s, want a new 201", other.Status, other.Header.Get("Idempotent-Replayed"), other.Body)
	}
	unblock()
	r := <-done
	if r.Status != other.Status || !bytes.Equal(r.Body, other.Body) || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("advisory attempt: status %d replayed %q body %s, want the claim-first response %s replayed",
			r.Status, r.Header.Get("Idempotent-Replayed"), r.Body, other.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders, want 1: the second business transaction must roll back", n)
	}
	if n := d.count(t, "SELECT count(*) FROM idempotency_record"); n != 1 {
		t.Errorf("%d records, want 1", n)
	}
}
