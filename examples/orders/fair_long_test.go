//go:build long

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/providers"
	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// The load of Must show 4 of issue 23: tenant a holds fairSlow slow
// orders (each holds its transaction, so its pool connection, for
// fairHold) and keeps fairStorm orders in flight, while tenant b sends
// its orders one after another.
const (
	fairSlow   = 4
	fairStorm  = 64
	fairHold   = 2 * time.Second
	fairPhase  = 5 * time.Second // how long b sends its orders in each phase: over two of a's slow orders
	fairRounds = 2               // of the three phases
)

// slowShop is the shop whose orders with an external id starting with
// "slow-" hold their transaction for fairHold first, like a handler that
// calls a slow service inside it.
type slowShop struct{ shop.Service }

func (s slowShop) CreateOrder(ctx context.Context, tx pgx.Tx, op *shop.CreateOrderOperation, req *shop.CreateOrderRequest) (shop.CreateOrderResponse, error) {
	if strings.HasPrefix(req.Body.ExternalOrderID, "slow-") {
		select {
		case <-time.After(fairHold):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.Service.CreateOrder(ctx, tx, op, req)
}

// fairCall is how long a provider takes to answer in
// TestFairEffectsBehindABacklog, like a mail service's API: the worker's 8
// calls at once then run at most 160 effects a second, fewer than tenant
// a's load enqueues, so that a backlog forms.
const fairCall = 50 * time.Millisecond

// slowed is a provider that answers after call.
type slowed struct {
	idem.Provider
	call time.Duration
}

func (p slowed) Do(ctx context.Context, c idem.EffectCall) idem.EffectOutcome {
	select {
	case <-time.After(p.call):
	case <-ctx.Done():
		return idem.EffectUnknown(ctx.Err())
	}
	return p.Provider.Do(ctx, c)
}

// slowedVerifier is slowed for a provider that verifies.
type slowedVerifier struct {
	slowed
	idem.Verifier
}

// slowProvider is p answering after call, verifying when p does.
func slowProvider(p idem.Provider, call time.Duration) idem.Provider {
	if v, ok := p.(idem.Verifier); ok {
		return slowedVerifier{slowed{p, call}, v}
	}
	return slowed{p, call}
}

// startFairServer serves the example's operations with slowShop, as
// newService builds them (its pool of the default size, the default
// Config), on the database url, and runs its effect worker unless
// noWorker, its providers answering after call.
func startFairServer(t *testing.T, url string, noWorker bool, call time.Duration) (addr string, pool *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := idem.Migrate(t.Context(), pool, idempotencySchema); err != nil {
		t.Fatal(err)
	}
	if err := createTables(t.Context(), pool); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: idempotencySchema, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	if err := shop.Register(mux, exec, slowShop{}, demoTenant); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer("", mux, defaultLimits)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	if noWorker {
		return ln.Addr().String(), pool
	}
	// As in run: the worker on a pool of its own.
	wpool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wpool.Close)
	provs := shop.Providers(providers.New(wpool))
	for name, p := range provs {
		provs[name] = slowProvider(p, call)
	}
	worker, err := idem.NewWorker(idem.WorkerConfig{Pool: wpool, Schema: idempotencySchema, Providers: provs, Logger: log,
		Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = worker.Run(ctx)
	}()
	t.Cleanup(func() { stop(); <-done })
	return ln.Addr().String(), pool
}

// fairPost sends one createOrder of tenant under key and returns its
// status.
func fairPost(ctx context.Context, client *http.Client, addr, tenant, key, body string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/orders", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tenant)
	req.Header.Set("Idempotency-Key", key)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// fairOrder is a createOrder body of one unit of sku under the external
// id prefix-n.
func fairOrder(prefix string, n int, sku string) string {
	return strings.Replace(orderJSON(n, sku, "1"), `"external_order_id":"A-`, `"external_order_id":"`+prefix+"-", 1)
}

// fairStatuses counts answers by status; 0 stands for a transport error.
type fairStatuses struct {
	mu sync.Mutex
	n  map[int]int
}

// add counts one answer.
func (c *fairStatuses) add(status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[int]int{}
	}
	c.n[status]++
}

// String lists the counts as count×status.
func (c *fairStatuses) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(c.n)) {
		parts = append(parts, fmt.Sprintf("%d×%d", c.n[s], s))
	}
	return strings.Join(parts, " ")
}

// fairLoad is tenant a's load while it runs: fairSlow slow orders and
// fairStorm orders in flight, each goroutine sending its next as soon as
// its last is answered.
type fairLoad struct {
	stop     context.CancelFunc
	wg       sync.WaitGroup
	statuses fairStatuses
	answered atomic.Int64
}

// startFairLoad starts tenant a's load; round numbers its keys.
func startFairLoad(addr string, round int) *fairLoad {
	ctx, stop := context.WithCancel(context.Background())
	l := &fairLoad{stop: stop}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: fairSlow + fairStorm}, Timeout: time.Minute}
	send := func(kind string, g int) {
		for n := 0; ctx.Err() == nil; n++ {
			id := fmt.Sprintf("%s-%d-%d", kind, round, g*1_000_000+n)
			status, err := fairPost(ctx, client, addr, "tenant-a", id, fairOrder(kind, g*1_000_000+n+round*100_000_000, "SKU-1"))
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				status = 0
			}
			l.statuses.add(status)
			l.answered.Add(1)
		}
	}
	for g := range fairSlow {
		l.wg.Go(func() { send("slow", g) })
	}
	for g := range fairStorm {
		l.wg.Go(func() { send("storm", g) })
	}
	return l
}

// end stops the load and waits for its goroutines.
func (l *fairLoad) end() {
	l.stop()
	l.wg.Wait()
}

// fairProbe sends b's orders one after another for fairPhase and returns
// their latencies.
func fairProbe(t *testing.T, client *http.Client, addr string, phase string, statuses *fairStatuses) []time.Duration {
	t.Helper()
	var lat []time.Duration
	for i, end := 0, time.Now().Add(fairPhase); time.Now().Before(end); i++ {
		key := fmt.Sprintf("b-%s-%d", phase, i)
		start := time.Now()
		status, err := fairPost(t.Context(), client, addr, "tenant-b", key, fairOrder("b-"+phase, i, "SKU-2"))
		lat = append(lat, time.Since(start))
		if err != nil {
			t.Fatalf("b's order %s: %v", key, err)
		}
		statuses.add(status)
	}
	return lat
}

// fairQuantile is the q-quantile of sorted (nearest rank).
func fairQuantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// fairMs is d in milliseconds.
func fairMs(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// Must show 4 of issue 23, latency: tenant b's orders one after another,
// alone and while tenant a holds fairSlow slow orders and keeps fairStorm
// orders in flight, in interleaved phases of one run: alone, loaded,
// isolated, alone, ... Before each phase a's effects are done, so that b
// alone is alone. Isolated is the ceiling: a's load as in loaded, but b's
// orders go to a second server of their own on the same database (its
// own pool, no worker), so that nothing of the runtime is shared and
// only the machine (its two cores, PostgreSQL) is. It reports b's
// p50/p90/p99 per kind of phase and every status either tenant got; it
// requires only that b got no 5xx, the figures being for
// docs/benchmarks.md, not assertions on a shared machine.
func TestFairShareUnderAStorm(t *testing.T) {
	url := pgtest.Database(t)
	addr, pool := startFairServer(t, url, false, 0)
	own, _ := startFairServer(t, url, true, 0)
	t.Logf("GOMAXPROCS %d, pool MaxConns %d", runtime.GOMAXPROCS(0), pool.Config().MaxConns)
	client := &http.Client{Timeout: time.Minute}
	phases := []struct {
		name string
		load bool
		addr string
		lat  []time.Duration
		st   fairStatuses
	}{{name: "alone", addr: addr}, {name: "under a's load", load: true, addr: addr},
		{name: "under a's load, on a server of its own", load: true, addr: own}}
	for round := range fairRounds {
		for i := range phases {
			p := &phases[i]
			fairEffectsDone(t, pool)
			var load *fairLoad
			if p.load {
				load = startFairLoad(addr, round*len(phases)+i)
				// Under way: a's first answers are in (its slow orders take
				// fairHold, so its storm has run a while by then).
				fairWaitFor(t, "a's load under way", time.Minute, func() bool { return load.answered.Load() >= fairStorm })
			}
			start, sent, before := time.Now(), len(p.lat), int64(0)
			if load != nil {
				before = load.answered.Load()
			}
			p.lat = append(p.lat, fairProbe(t, client, p.addr, fmt.Sprintf("%d-%d", round, i), &p.st)...)
			took := time.Since(start)
			if load != nil {
				answered := load.answered.Load() - before
				load.end()
				t.Logf("round %d, b %s: b sent %d orders in %v, a's load had %d answered meanwhile (%s in all)", round, p.name,
					len(p.lat)-sent, took.Round(time.Millisecond), answered, load.statuses.String())
			}
		}
	}
	var p99 []time.Duration
	for i := range phases {
		p := &phases[i]
		slices.Sort(p.lat)
		p99 = append(p99, fairQuantile(p.lat, 0.99))
		t.Logf("b %s: %d orders, p50 %s, p90 %s, p99 %s, max %s; statuses %s", p.name, len(p.lat),
			fairMs(fairQuantile(p.lat, 0.5)), fairMs(fairQuantile(p.lat, 0.9)), fairMs(p99[i]), fairMs(p.lat[len(p.lat)-1]), p.st.String())
		for status, n := range p.st.n {
			if status >= 500 || status == 0 {
				t.Errorf("b %s got %d answers %d", p.name, n, status)
			}
		}
	}
	t.Logf("b's p99 under a's load / alone: %.2f× (on a server of its own: %.2f×)",
		float64(p99[1])/float64(p99[0]), float64(p99[2])/float64(p99[0]))
}

// fairEffectsDone waits until no effect is left to run.
func fairEffectsDone(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	fairWaitFor(t, "every effect done", 2*time.Minute, func() bool {
		var open int
		err := pool.QueryRow(t.Context(), `SELECT count(*) FROM idempotency.idempotency_outbox WHERE state = 'pending'`).Scan(&open)
		return err == nil && open == 0
	})
}

// fairWaitFor polls cond every 20ms until it holds, failing the test after
// within.
func fairWaitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Must show 4 of issue 23, effects: how long tenant b's effects wait,
// alone and behind the backlog tenant a's fairBacklog orders leave (a
// sends them fairStorm at a time, faster than the worker's providers
// answer; b sends fairFew orders once half of a's are answered). The wait
// of an effect is from its enqueue (its outbox row's created_at) to its
// outcome's record (updated_at), both read on this host. Figures only.
func TestFairEffectsBehindABacklog(t *testing.T) {
	const fairBacklog, fairFew = 1500, 5
	addr, pool := startFairServer(t, pgtest.Database(t), false, fairCall)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: fairStorm}, Timeout: time.Minute}
	sendB := func(phase string) {
		for i := range fairFew {
			status, err := fairPost(t.Context(), client, addr, "tenant-b", fmt.Sprintf("b-%s-%d", phase, i), fairOrder("b-"+phase, i, "SKU-2"))
			if err != nil || status != http.StatusCreated {
				t.Fatalf("b's order: %d, %v", status, err)
			}
		}
	}
	waits := func(tenant string) (p50, worst time.Duration) {
		rows, err := pool.Query(t.Context(), `SELECT extract(epoch FROM updated_at - created_at)::float8
			FROM idempotency.idempotency_outbox WHERE scope = $1 AND state = 'done' ORDER BY 1`, tenant)
		if err != nil {
			t.Fatal(err)
		}
		secs, err := pgx.CollectRows(rows, pgx.RowTo[float64])
		if err != nil || len(secs) == 0 {
			t.Fatalf("%s's waits: %d, %v", tenant, len(secs), err)
		}
		d := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
		return d(secs[len(secs)/2]), d(secs[len(secs)-1])
	}

	sendB("alone")
	fairEffectsDone(t, pool)
	p50, worst := waits("tenant-b")
	t.Logf("b alone: %d effects, wait p50 %s, max %s", 2*fairFew, fairMs(p50), fairMs(worst))
	if _, err := pool.Exec(t.Context(), `DELETE FROM idempotency.idempotency_outbox WHERE scope = 'tenant-b'`); err != nil {
		t.Fatal(err)
	}

	var sent, answered atomic.Int64
	var aStatuses fairStatuses
	var wg sync.WaitGroup
	half := make(chan struct{})
	var once sync.Once
	start := time.Now()
	for g := range fairStorm {
		wg.Go(func() {
			for {
				n := int(sent.Add(1))
				if n > fairBacklog {
					return
				}
				status, err := fairPost(t.Context(), client, addr, "tenant-a", fmt.Sprintf("a-%d", n), fairOrder("a", n, "SKU-1"))
				if err != nil {
					t.Errorf("a's order %d (goroutine %d): %v", n, g, err)
				}
				aStatuses.add(status)
				if answered.Add(1) == fairBacklog/2 {
					once.Do(func() { close(half) })
				}
			}
		})
	}
	<-half
	sendB("behind")
	wg.Wait()
	sentIn := time.Since(start)
	fairEffectsDone(t, pool)
	drained := time.Since(start)
	p50, worst = waits("tenant-b")
	aP50, aWorst := waits("tenant-a")
	t.Logf("a's %d orders (%s) sent in %v, their effects done after %v (wait p50 %s, max %s)", fairBacklog, aStatuses.String(),
		sentIn.Round(time.Millisecond), drained.Round(time.Millisecond), fairMs(aP50), fairMs(aWorst))
	t.Logf("b behind a's backlog: %d effects, wait p50 %s, max %s", 2*fairFew, fairMs(p50), fairMs(worst))
}
