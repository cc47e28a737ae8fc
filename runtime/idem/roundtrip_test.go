package idem_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// rtConn sees the database round trips of a connection: each turn from
// writing to the server to reading from it is one. It counts them when
// count is set, and with a delay the first write of each turn waits that
// long first, as if the server were on another host that far away.
type rtConn struct {
	net.Conn
	mu      *sync.Mutex
	count   *int
	delay   time.Duration
	writing bool
}

func (c *rtConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	turn := !c.writing
	c.writing = true
	c.mu.Unlock()
	if turn && c.delay > 0 {
		time.Sleep(c.delay)
	}
	return c.Conn.Write(p)
}

// Read counts a turn when the server's answer arrives, not when the read
// starts: pgx's background reader may already be waiting in Read while
// the request is written, and a read that began before the write must
// still end the turn the write began.
func (c *rtConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if n > 0 && c.writing {
		c.writing = false
		if c.count != nil {
			*c.count++
		}
	}
	c.mu.Unlock()
	return n, err
}

// dialRT returns a pgx DialFunc whose connections are rtConns made by wrap.
func dialRT(wrap func(net.Conn) *rtConn) func(context.Context, string, string) (net.Conn, error) {
	dialer := &net.Dialer{}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wrap(conn), nil
	}
}

// roundTrips is a pool of maxConns connections whose round trips are
// counted, all its connections together, in
// pgx's default query exec mode (cache_statement), whatever DATABASE_URL
// says: the counts below are that mode's. Under the pooler-safe modes the
// store prepares nothing by name and pays for it in round trips:
// cache_describe re-describes the opening pipeline after each replay,
// whose failure drops its cached descriptions, and exec describes every
// statement.
type roundTrips struct {
	pool *pgxpool.Pool
	mu   sync.Mutex
	n    int
}

func newRoundTrips(tb testing.TB, d *db, maxConns int32) *roundTrips {
	tb.Helper()
	rt := &roundTrips{}
	rt.pool = d.newPool(tb, maxConns, func(cfg *pgxpool.Config) {
		cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheStatement
		cfg.ConnConfig.DialFunc = dialRT(func(conn net.Conn) *rtConn {
			return &rtConn{Conn: conn, mu: &rt.mu, count: &rt.n}
		})
	})
	return rt
}

// measure returns the round trips f made.
func (rt *roundTrips) measure(f func()) int {
	rt.mu.Lock()
	before := rt.n
	rt.mu.Unlock()
	f()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.n - before
}

// The round trips of each protocol, asserted so they cannot regress
// silently. A new operation costs what the bare insert in its own
// transaction costs on both: under advisory, the opening pipeline (record
// read, BEGIN, key lock, recheck), the business insert, and the record
// insert with COMMIT; under claim-first, BEGIN+claim, the business insert,
// and the update with COMMIT. A replay is one round trip under advisory
// (the opening pipeline ends itself after the read) and two under
// claim-first (BEGIN+claim, record read+ROLLBACK); the replay right after
// a replay shows that the failed pipeline did not drop prepared
// statements. Statements are warmed up first, as pgx prepares each one on
// first use. It runs on the protocol protocolEnv names (TestMain runs
// both).
func TestRoundTrips(t *testing.T) {
	d := newDB(t)
	rt := newRoundTrips(t, d, 1)
	// The database's round trips: without the replay cache, which answers
	// a replay with none (TestCachedReplayRoundTrips).
	h := newHandler(t, rt.pool, orderContract(), idem.Config{ReplayCacheBytes: -1}, createOrder)
	replay := 1
	if testProtocol() == idem.ProtocolClaimFirst {
		replay = 2
	}
	body := `{"customer":"c-1","amount":1}`
	bare := func() {
		ctx := context.Background()
		tx, err := rt.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO orders (tenant, customer, amount) VALUES ($1, $2, $3) RETURNING id", "t", "c-1", 1); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 { // warm the statement caches
		bare()
		if r := post(h, "t", fmt.Sprintf("warm-%d", i), body); r.Status != http.StatusCreated {
			t.Fatalf("warm-up: %d %s", r.Status, r.Body)
		}
		post(h, "t", fmt.Sprintf("warm-%d", i), body)
		post(h, "t", fmt.Sprintf("warm-failure-%d", i), `{"customer":"c-1","amount":-1}`)
	}
	for _, tc := range []struct {
		name string
		f    func()
		want int
	}{
		{"bare insert in a transaction", bare, 3},
		{"new operation", func() {
			if r := post(h, "t", "rt-1", body); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("new: %d %s", r.Status, r.Body)
			}
		}, 3},
		{"replay", func() {
			if r := post(h, "t", "rt-1", body); r.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay: %d %s", r.Status, r.Body)
			}
		}, replay},
		{"replay after a replay", func() {
			if r := post(h, "t", "rt-1", body); r.Header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay: %d %s", r.Status, r.Body)
			}
		}, replay},
		{"new operation after a replay", func() {
			if r := post(h, "t", "rt-3", body); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("new: %d %s", r.Status, r.Body)
			}
		}, 3},
		{"stored failure", func() {
			if r := post(h, "t", "rt-2", `{"customer":"c-1","amount":-1}`); r.Status != http.StatusBadRequest {
				t.Fatalf("stored failure: %d %s", r.Status, r.Body)
			}
		}, 3},
	} {
		if got := rt.measure(tc.f); got != tc.want {
			t.Errorf("%s: %d round trips, want %d", tc.name, got, tc.want)
		}
	}
}

// With the replay cache (the default), the first replay of a decided
// operation reads its record (one round trip under advisory, two under
// claim-first), every later one none; a conflicting request under the
// cached key is refused 422 with none either.
func TestCachedReplayRoundTrips(t *testing.T) {
	d := newDB(t)
	rt := newRoundTrips(t, d, 1)
	h := newHandler(t, rt.pool, orderContract(), idem.Config{}, createOrder)
	first := 1
	if testProtocol() == idem.ProtocolClaimFirst {
		first = 2
	}
	body := `{"customer":"c-1","amount":1}`
	post(h, "t", "warm", body) // statements prepared
	post(h, "t", "warm", body)
	var created idemtest.Response
	for _, tc := range []struct {
		name string
		f    func()
		want int
	}{
		{"new operation", func() { created = post(h, "t", "cached-1", body); mustStatus(t, created, http.StatusCreated) }, 3},
		{"first replay", func() { mustReplay(t, post(h, "t", "cached-1", body), created) }, first},
		{"cached replay", func() { mustReplay(t, post(h, "t", "cached-1", body), created) }, 0},
		{"cached replay again", func() { mustReplay(t, post(h, "t", "cached-1", body), created) }, 0},
		{"conflict under the cached key", func() {
			mustStatus(t, post(h, "t", "cached-1", `{"customer":"c-2","amount":1}`), http.StatusUnprocessableEntity)
		}, 0},
		{"the same key in another scope", func() { mustStatus(t, post(h, "u", "cached-1", body), http.StatusCreated) }, 3},
	} {
		if got := rt.measure(tc.f); got != tc.want {
			t.Errorf("%s: %d round trips, want %d", tc.name, got, tc.want)
		}
	}
}

// mustReplay fails the test unless r replays first: the same status and
// body, marked replayed.
func mustReplay(t *testing.T, r, first idemtest.Response) {
	t.Helper()
	if r.Status != first.Status || string(r.Body) != string(first.Body) || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s, want %d %s replayed", r.Status, r.Body, first.Status, first.Body)
	}
}

// Under the reject policy, a request whose key another session holds is
// refused 409 in the opening pipeline's one round trip on the advisory
// protocol (the lock taken ends the pipeline as a record does), and in two
// on claim-first (the claim's lock wait fails, then ROLLBACK); once the
// holder is gone the key is free, nothing of the refusal stored.
func TestRejectRefusalRoundTrips(t *testing.T) {
	ctx := context.Background()
	d := newDB(t)
	c := orderContract()
	c.Concurrency = idemimpl.ConcurrencyReject
	for _, p := range []struct {
		protocol idem.Protocol
		hold     string // what the other session does, with the key
		want     int
	}{
		{idem.ProtocolAdvisory, "SELECT pg_advisory_xact_lock($1) FROM (SELECT $2::text, $3::text) AS k", 1},
		{idem.ProtocolClaimFirst, `INSERT INTO idempotency_record (scope, idempotency_key, fingerprint, state, operation_id,
			created_at, expires_at, purge_at) SELECT $2, $3, '\x00', 'in_progress', gen_random_uuid(), now(), now() + interval '1 hour',
			now() + interval '2 hours' FROM (SELECT $1::bigint) AS k`, 2},
	} {
		rt := newRoundTrips(t, d, 1)
		h := newHandler(t, rt.pool, c, idem.Config{Protocol: p.protocol}, createOrder)
		body := `{"customer":"c-1","amount":1}`
		mustCreate(t, post(h, "t", "warm-"+p.protocol.String(), body)) // warm the statement caches
		key := "busy-" + p.protocol.String()
		holder, err := d.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := holder.Exec(ctx, p.hold, pgstore.LockKey("t", key), "t", key); err != nil {
			t.Fatal(err)
		}
		var r idemtest.Response
		if got := rt.measure(func() { r = post(h, "t", key, body) }); got != p.want || r.Status != http.StatusConflict {
			t.Errorf("%s: refused with %d %s in %d round trips, want 409 in %d", p.protocol, r.Status, r.Body, got, p.want)
		}
		if err := holder.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		mustCreate(t, post(h, "t", key, body))
	}
}

// The benchmark's paths cost the round trips docs/benchmarks.md states, so
// that BenchmarkCreateOrder compares like with like: placeOrder's three
// statements plus BEGIN and COMMIT on bare, floor and the runtime's new
// operation (the floor's record insert rides with COMMIT; the runtime's
// opening pipeline replaces BEGIN), two more on the middleware (its claim
// and its UPDATE, each a transaction of its own), one for a replay on
// the advisory protocol and two on claim-first.
func TestBenchmarkPathsRoundTrips(t *testing.T) {
	d := newDB(t)
	if _, err := d.pool.Exec(context.Background(), shopDDL); err != nil {
		t.Fatal(err)
	}
	rt := newRoundTrips(t, d, 1)
	advisory := newHandler(t, rt.pool, orderContract(), idem.Config{Protocol: idem.ProtocolAdvisory}, placeOrder)
	claimFirst := newHandler(t, rt.pool, orderContract(), idem.Config{Protocol: idem.ProtocolClaimFirst}, placeOrder)
	paths := []struct {
		name string
		h    http.Handler
		new  int
	}{
		{"bare", bareHandler(rt.pool, false), 5},
		{"floor", bareHandler(rt.pool, true), 5},
		{"advisory", advisory, 5},
		{"claim-first", claimFirst, 5},
		{"middleware", middlewareHandler(rt.pool), 7},
	}
	for i := range 2 { // warm the statement caches, replays too
		for _, p := range paths {
			mustCreate(t, post(p.h, "t", fmt.Sprintf("warm-%s-%d", p.name, i), benchBody))
		}
		post(advisory, "t", fmt.Sprintf("warm-advisory-%d", i), benchBody)
		post(claimFirst, "t", fmt.Sprintf("warm-claim-first-%d", i), benchBody)
	}
	for _, p := range paths {
		if got := rt.measure(func() { mustCreate(t, post(p.h, "t", "rt-"+p.name, benchBody)) }); got != p.new {
			t.Errorf("%s: %d round trips, want %d", p.name, got, p.new)
		}
	}
	for _, p := range []struct {
		name string
		h    http.Handler
		want int
	}{{"advisory", advisory, 1}, {"claim-first", claimFirst, 2}} {
		got := rt.measure(func() {
			if r := post(p.h, "t", "rt-"+p.name, benchBody); r.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("%s replay: %d %s", p.name, r.Status, r.Body)
			}
		})
		if got != p.want {
			t.Errorf("%s replay: %d round trips, want %d", p.name, got, p.want)
		}
	}
}

func mustCreate(t *testing.T, r idemtest.Response) {
	t.Helper()
	if r.Status != http.StatusCreated {
		t.Fatalf("status %d body %s, want 201", r.Status, r.Body)
	}
}
