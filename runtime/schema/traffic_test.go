package schema_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// others is how many requests run beside the one that waits on a business
// lock: sixteen in flight.
const others = 15

// A second instance starts (runs Migrate and serves a first request) while
// sixteen requests are in flight and one of them waits on a business lock:
// no other session waits on a relation lock meanwhile, and the other
// fifteen finish while the business lock is still held. Their latencies
// with and without the start are logged; the assertion is on the locks. A
// control round shows that the probe sees the failure it looks for: the
// DDL Migrate used to run at every start queues behind the waiting request,
// and a new claim queues behind it.
func TestMigrateDuringTrafficHoldsUpNoClaim(t *testing.T) {
	ctx := t.Context()
	cs := pgtest.Database(t)
	admin := openPool(t, cs, 4)
	if _, err := admin.Exec(ctx, shopDDL); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "INSERT INTO public.stock SELECT 'sku-' || i, 1000 FROM generate_series(0, $1) i UNION ALL VALUES ('hot', 1000), ('sku-second', 1000)", others-1); err != nil {
		t.Fatal(err)
	}
	if err := schema.Migrate(ctx, admin, schema.ReleasedSchema); err != nil { // the first instance's start
		t.Fatal(err)
	}
	entered := make(chan int, 1)
	first := newShop(t, openPool(t, cs, others+5), func(sku string, pid int) {
		if sku == "hot" {
			entered <- pid
		}
	})
	var warm sync.WaitGroup // past the executor's schema check, with a connection per request
	for i := range others + 1 {
		warm.Go(func() {
			if rec := order(first, "warm-up", fmt.Sprintf("warm-up-%d", i), fmt.Sprintf("sku-%d", i%others)); rec.Code != http.StatusCreated {
				t.Errorf("warm-up: %d %s", rec.Code, rec.Body)
			}
		})
	}
	warm.Wait()
	secondPool := openPool(t, cs, 4)
	second := newShop(t, secondPool, nil) // its executor checks the schema on its first request

	rounds := []struct {
		name  string
		start func() error
	}{
		{"without a start", nil},
		{"with a second instance starting", func() error {
			if err := schema.Migrate(ctx, secondPool, schema.ReleasedSchema); err != nil {
				return err
			}
			if rec := order(second, "tenant-second", "second-instance", "sku-second"); rec.Code != http.StatusCreated {
				return fmt.Errorf("the second instance's first request: %d %s", rec.Code, rec.Body)
			}
			return nil
		}},
	}
	latencies := map[string][]time.Duration{}
	for n, r := range rounds {
		blocked := holdBusinessLock(t, admin, first, entered, fmt.Sprintf("round-%d", n))
		probe := startProbe(t, admin, blocked.pid, nil, nil)
		gate := make(chan struct{})
		var wg sync.WaitGroup
		took := make([]time.Duration, others)
		for i := range others {
			wg.Go(func() {
				<-gate
				t0 := time.Now()
				rec := order(first, fmt.Sprintf("tenant-%d", i), fmt.Sprintf("round-%d-%d", n, i), fmt.Sprintf("sku-%d", i))
				took[i] = time.Since(t0)
				if rec.Code != http.StatusCreated {
					t.Errorf("%s: request %d: %d %s", r.name, i, rec.Code, rec.Body)
				}
			})
		}
		var startErr error
		if r.start != nil {
			wg.Go(func() { <-gate; startErr = r.start() })
		}
		close(gate)
		wg.Wait()
		if startErr != nil {
			t.Errorf("%s: %v", r.name, startErr)
		}
		blocked.stillWaiting(t)
		other := map[string]int{}
		for _, w := range probe.stop() {
			if w.lockType == "relation" {
				t.Errorf("%s: session %d waited on a relation lock: %+v", r.name, w.pid, w)
			} else {
				other[fmt.Sprintf("%s %s on %s", w.lockType, w.mode, w.relation)]++
			}
		}
		if len(other) > 0 {
			t.Logf("%s: other waits seen (sessions by lock): %v", r.name, other)
		}
		blocked.release(t)
		latencies[r.name] = took
	}
	for _, r := range rounds {
		d := slices.Sorted(slices.Values(latencies[r.name]))
		t.Logf("latencies of the %d other requests %s: min %v, median %v, max %v", others, r.name, d[0], d[len(d)/2], d[len(d)-1])
	}

	t.Run("control: the DDL of every start queues claims", func(t *testing.T) {
		// On claim-first, whose claim row holds a RowExclusiveLock on
		// idempotency_record for the whole operation, as every operation
		// did when Migrate ran that DDL; the advisory protocol only reads
		// the table until its last statement.
		first := newShopOn(t, openPool(t, cs, 4), func(sku string, pid int) {
			if sku == "hot" {
				entered <- pid
			}
		}, idem.ProtocolClaimFirst)
		blocked := holdBusinessLock(t, admin, first, entered, "control")
		queued := make(chan lockWait, 1)
		probe := startProbe(t, admin, blocked.pid, func(w lockWait) bool { return w.lockType == "relation" && w.mode == "RowExclusiveLock" }, queued)
		oldCtx, cancelOld := context.WithCancel(ctx)
		oldDone := make(chan error, 1)
		go func() { oldDone <- oldStart(oldCtx, secondPool) }()
		waitForLock(t, admin, "ShareLock") // the old start's CREATE INDEX, queued behind the waiting request
		claim := make(chan *httptest.ResponseRecorder, 1)
		go func() { claim <- order(first, "tenant-0", "control", "sku-0") }()
		select {
		case w := <-queued: // the claim waits on idempotency_record behind the old start
			t.Logf("the new claim waited: %+v", w)
		case rec := <-claim:
			t.Fatalf("the claim went past the old start: %d %s", rec.Code, rec.Body)
		}
		cancelOld()
		if err := <-oldDone; err == nil {
			t.Error("the old start's DDL finished while the business lock was held")
		}
		if rec := <-claim; rec.Code != http.StatusCreated {
			t.Errorf("the queued claim: %d %s", rec.Code, rec.Body)
		}
		probe.stop()
		blocked.release(t)
	})
}

// oldStart is what Migrate did at every start before the schema had
// versions: all of step 1's DDL (IF NOT EXISTS) in one transaction.
func oldStart(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "SET LOCAL search_path = idempotency; "+schema.Steps()[0].Up)
		return err
	})
}

// waitForLock returns once a session of the database waits for a relation
// lock in mode.
func waitForLock(t *testing.T, pool *pgxpool.Pool, mode string) {
	t.Helper()
	for {
		var waiting bool
		if err := pool.QueryRow(t.Context(), `SELECT EXISTS (SELECT FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
WHERE NOT l.granted AND l.locktype = 'relation' AND l.mode = $1 AND a.datname = current_database())`, mode).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		select {
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		case <-time.After(time.Millisecond): // polling the server's view, not ordering goroutines
		}
	}
}

// blockedRequest is a request whose business function waits on a row lock
// the test holds.
type blockedRequest struct {
	pid  int // its session
	lock pgx.Tx
	done chan *httptest.ResponseRecorder
}

// holdBusinessLock locks the "hot" SKU's row and sends an order of it to h;
// it returns once that request's session waits on the row.
func holdBusinessLock(t *testing.T, admin *pgxpool.Pool, h http.Handler, entered <-chan int, key string) *blockedRequest {
	t.Helper()
	ctx := t.Context()
	lock, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(ctx, "SELECT FROM public.stock WHERE sku = 'hot' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	b := &blockedRequest{lock: lock, done: make(chan *httptest.ResponseRecorder, 1)}
	go func() { b.done <- order(h, "tenant-hot", key+"-hot", "hot") }()
	select {
	case b.pid = <-entered:
	case rec := <-b.done:
		t.Fatalf("the request on the locked row: %d %s", rec.Code, rec.Body)
	}
	for { // until the session is in the lock's queue
		var waiting bool
		if err := admin.QueryRow(ctx, "SELECT coalesce(bool_or(wait_event_type = 'Lock'), false) FROM pg_stat_activity WHERE pid = $1", b.pid).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			return b
		}
		select {
		case rec := <-b.done:
			t.Fatalf("the request on the locked row finished: %d %s", rec.Code, rec.Body)
		case <-time.After(time.Millisecond): // polling the server's view, not ordering goroutines
		}
	}
}

// stillWaiting fails the test if the request is no longer waiting.
func (b *blockedRequest) stillWaiting(t *testing.T) {
	t.Helper()
	select {
	case rec := <-b.done:
		t.Fatalf("the request on the locked row finished while the lock was held: %d %s", rec.Code, rec.Body)
	default:
	}
}

// release commits the lock's transaction and requires the request to
// complete.
func (b *blockedRequest) release(t *testing.T) {
	t.Helper()
	if err := b.lock.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rec := <-b.done; rec.Code != http.StatusCreated {
		t.Errorf("the request on the locked row, after the lock: %d %s", rec.Code, rec.Body)
	}
}

// lockWait is one lock a session of the test's database waited on.
type lockWait struct {
	pid                           int
	lockType, mode, relation, sql string
}

// lockProbe samples pg_locks for the sessions of the database that wait on
// a lock, other than its own and the one it excludes.
type lockProbe struct {
	done chan struct{}
	mu   sync.Mutex
	seen map[lockWait]bool
	quit context.CancelFunc
}

// startProbe samples until stop; match, when not nil, picks the waits the
// probe offers on found (a buffered channel: the first one is kept).
func startProbe(t *testing.T, pool *pgxpool.Pool, exclude int, match func(lockWait) bool, found chan<- lockWait) *lockProbe {
	t.Helper()
	conn, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, quit := context.WithCancel(t.Context())
	p := &lockProbe{done: make(chan struct{}), seen: map[lockWait]bool{}, quit: quit}
	go func() {
		defer close(p.done)
		defer conn.Release()
		tick := time.NewTicker(time.Millisecond) // sampling, not ordering
		defer tick.Stop()
		for ctx.Err() == nil {
			rows, err := conn.Query(ctx, `SELECT l.pid, l.locktype, l.mode, coalesce(l.relation::regclass::text, ''), left(a.query, 80)
FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
WHERE NOT l.granted AND a.datname = current_database() AND l.pid <> pg_backend_pid() AND l.pid <> $1`, exclude)
			if err != nil {
				return // the probe was stopped
			}
			for rows.Next() {
				var w lockWait
				if rows.Scan(&w.pid, &w.lockType, &w.mode, &w.relation, &w.sql) == nil {
					p.mu.Lock()
					p.seen[w] = true
					p.mu.Unlock()
					if match != nil && match(w) {
						select {
						case found <- w:
						default:
						}
					}
				}
			}
			rows.Close()
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()
	return p
}

// stop ends the sampling and returns the waits seen.
func (p *lockProbe) stop() []lockWait {
	p.quit()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []lockWait
	for w := range p.seen {
		out = append(out, w)
	}
	return out
}
