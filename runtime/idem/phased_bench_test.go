package idem_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// BenchmarkTwoSteps is placeOrder cut in two steps, the order row and
// then its items and stock, three ways, as sub-benchmarks of one run so
// that -count interleaves nothing but the same machine serves all three
// (run the compiled binary several times for interleaved samples,
// docs/benchmarks.md):
//
//   - path=bare: the two steps as two plain transactions on one
//     connection, no idempotency;
//   - path=atomic: both steps in the one transaction of an atomic
//     operation (placeOrder through the runtime);
//   - path=phased: a phased operation of two local steps, each in its own
//     transaction that commits its recovery point (the second, the answer).
//
// Besides the time, each reports its database round trips per operation
// (counted on the sockets during the timed run: round-trips/op) and, from
// one operation measured alone before it, where they fall: rt-open/op
// before the first step's statements (the claim), rt-step1/op from the
// first step's statements to the second's (its commit and the next
// transaction's start included), rt-step2/op from there to the answer.
func BenchmarkTwoSteps(b *testing.B) {
	d, _ := benchPool(b)
	rt := newRoundTrips(b, d, benchParallelism)
	paths := twoStepPaths(b, rt.pool)
	var run atomic.Int64 // keeps keys fresh across repeated runs
	for _, p := range paths {
		b.Run("path="+p.name, func(b *testing.B) {
			prefix := "two-" + strconv.FormatInt(run.Add(1), 10) + "-"
			// Warm the pool's connections and their statement caches, so
			// that the counted run is the steady state's.
			warm(b, p.h, prefix+"warm-")
			steps := stepRoundTrips(b, rt, p.h, prefix+"alone")
			before := rt.measure(func() {
				runParallel(b, func(i int64) {
					mustStatus(b, post(p.h, "tenant-a", prefix+strconv.FormatInt(i, 10), benchBody), http.StatusCreated)
				})
			})
			b.ReportMetric(float64(before)/float64(b.N), "round-trips/op")
			b.ReportMetric(float64(steps.open), "rt-open/op")
			b.ReportMetric(float64(steps.step1), "rt-step1/op")
			b.ReportMetric(float64(steps.step2), "rt-step2/op")
		})
	}
}

// warm runs 4 × benchParallelism operations on h, benchParallelism at a
// time, with keys that start with prefix.
func warm(tb testing.TB, h http.Handler, prefix string) {
	tb.Helper()
	var wg sync.WaitGroup
	for g := range benchParallelism {
		wg.Go(func() {
			for i := range 4 {
				if r := post(h, "tenant-a", prefix+strconv.Itoa(g*4+i), benchBody); r.Status != http.StatusCreated {
					tb.Errorf("warm-up: status %d body %s, want 201", r.Status, r.Body)
				}
			}
		})
	}
	wg.Wait()
}

// twoStepPath is one way of BenchmarkTwoSteps to serve the two steps.
type twoStepPath struct {
	name string
	h    http.Handler
}

// twoStepPaths are BenchmarkTwoSteps' handlers on pool: bare, atomic and
// phased.
func twoStepPaths(tb testing.TB, pool *pgxpool.Pool) []twoStepPath {
	tb.Helper()
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		tb.Fatal(err)
	}
	atomicH, err := idemimpl.NewHandler(exec, orderContract(), tenantScope, markedPlaceOrder)
	if err != nil {
		tb.Fatal(err)
	}
	phasedH, err := idemimpl.NewPhasedHandler(exec, twoStepOrder(), tenantScope)
	if err != nil {
		tb.Fatal(err)
	}
	return []twoStepPath{{"bare", twoTransactions(pool)}, {"atomic", atomicH}, {"phased", phasedH}}
}

// The round trips of BenchmarkTwoSteps' paths, asserted so that the
// benchmark's figures cannot change silently: the claim's opening
// pipeline costs what bare's BEGIN does; the phased operation's first
// step costs what bare's first transaction and the second's BEGIN do (the
// step's statement, its recovery point with COMMIT, BEGIN with the lease's
// renewal), where the atomic operation goes on in its transaction; the
// second step costs two statements and the COMMIT (with the answer) on
// all three.
func TestTwoStepsRoundTrips(t *testing.T) {
	d := newDB(t)
	if _, err := d.pool.Exec(t.Context(), shopDDL); err != nil {
		t.Fatal(err)
	}
	rt := newRoundTrips(t, d, 1)
	want := map[string]twoStepRoundTrips{"bare": {1, 3, 3}, "atomic": {1, 1, 3}, "phased": {1, 3, 3}}
	for _, p := range twoStepPaths(t, rt.pool) {
		for i := range 2 { // warm the statement cache
			mustStatus(t, post(p.h, "tenant-a", p.name+"-warm-"+strconv.Itoa(i), benchBody), http.StatusCreated)
		}
		if got := stepRoundTrips(t, rt, p.h, p.name+"-counted"); got != want[p.name] {
			t.Errorf("%s: round trips %+v, want %+v", p.name, got, want[p.name])
		}
	}
}

// twoStepRoundTrips is where one operation's round trips fall: before the
// first step's statements, from them to the second step's, and from
// there to the answer.
type twoStepRoundTrips struct{ open, step1, step2 int }

// stepMarks is the round-trip count at each step's first statement, kept
// in the request's context by stepRoundTrips and set by markStep.
type stepMarks struct {
	rt    *roundTrips
	at    [2]int
	seen  [2]bool
	start int
}

type stepMarksKey struct{}

// markStep notes that step (0 or 1) begins, when ctx is stepRoundTrips'.
func markStep(ctx context.Context, step int) {
	m, ok := ctx.Value(stepMarksKey{}).(*stepMarks)
	if !ok {
		return
	}
	m.rt.mu.Lock()
	m.at[step], m.seen[step] = m.rt.n, true
	m.rt.mu.Unlock()
}

// stepRoundTrips runs one operation with key on h alone, nothing else on
// the pool, and returns where its round trips fell.
func stepRoundTrips(tb testing.TB, rt *roundTrips, h http.Handler, key string) twoStepRoundTrips {
	tb.Helper()
	m := &stepMarks{rt: rt}
	total := rt.measure(func() {
		rt.mu.Lock()
		m.start = rt.n
		rt.mu.Unlock()
		req := idemtest.NewRequest(http.MethodPost, "/orders", key, []byte(benchBody))
		req.Header.Set("X-Tenant", "tenant-a")
		req = req.WithContext(context.WithValue(req.Context(), stepMarksKey{}, m))
		mustStatus(tb, idemtest.Serve(h, req), http.StatusCreated)
	})
	if !m.seen[0] || !m.seen[1] {
		tb.Fatalf("%s: the steps ran %v", key, m.seen)
	}
	return twoStepRoundTrips{open: m.at[0] - m.start, step1: m.at[1] - m.at[0], step2: total - (m.at[1] - m.start)}
}

// markedPlaceOrder is placeOrder with its two steps marked.
func markedPlaceOrder(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
	markStep(ctx, 0)
	in, id, err := insertOrder(ctx, tx, op, req)
	if err != nil {
		return nil, err
	}
	markStep(ctx, 1)
	if err := placeItems(ctx, tx, id, in.Amount); err != nil {
		return nil, err
	}
	return jsonResponse(http.StatusCreated, map[string]any{"order_id": id, "customer": in.Customer, "amount": in.Amount}), nil
}

// placedOrder is the first step's output: the order row, handed to the
// second.
type placedOrder struct {
	OrderID  int64  `json:"order_id"`
	Customer string `json:"customer"`
	Amount   int64  `json:"amount"`
}

// twoStepOrder is placeOrder as a phased operation of two local steps:
// the order row, then its items, stock and answer.
func twoStepOrder() idemimpl.Phased[orderRequest] {
	c := orderContract()
	c.Lease = 30 * time.Second
	return idemimpl.Phased[orderRequest]{
		Contract: c,
		Decode: func(r *idemimpl.Request) (*orderRequest, error) {
			in := new(orderRequest)
			return in, json.Unmarshal(r.Body, in)
		},
		Fingerprint: func(in *orderRequest, params map[string]string) (fingerprint.Sum, error) {
			return fingerprint.SumWith(http.MethodPost, "/orders", params, func(w *fingerprint.Writer) {
				w.BeginObject()
				w.Key("amount")
				w.Int(in.Amount)
				w.Key("customer")
				w.String(in.Customer)
				w.Key("items")
				w.BeginUnorderedArray()
				for _, item := range in.Items {
					w.String(item)
				}
				w.EndUnorderedArray()
				w.EndObject()
			})
		},
		Steps: []idemimpl.Step[orderRequest]{
			idemimpl.LocalStep("order", func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, in *orderRequest, _ *idemimpl.NoOutput) (*placedOrder, error) {
				markStep(ctx, 0)
				var id int64
				err := tx.QueryRow(ctx, "INSERT INTO orders (tenant, customer, amount) VALUES ($1, $2, $3) RETURNING id",
					op.Scope, in.Customer, in.Amount).Scan(&id)
				return &placedOrder{OrderID: id, Customer: in.Customer, Amount: in.Amount}, err
			}),
			idemimpl.FinalStep("items", func(ctx context.Context, tx pgx.Tx, _ *idemimpl.Operation, _ *orderRequest, o *placedOrder) (*placedOrder, error) {
				markStep(ctx, 1)
				return o, placeItems(ctx, tx, o.OrderID, o.Amount)
			}, func(o *placedOrder) idemimpl.Answer {
				return idemimpl.Answer{Status: http.StatusCreated, Body: idemimpl.JSONBody("application/json", o)}
			}),
		},
	}
}

// twoTransactions serves the two steps without idempotency: the order row
// in one transaction, its items and stock in a second, on one connection.
func twoTransactions(pool *pgxpool.Pool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, tenant, ok := readBench(w, r)
		if !ok {
			return
		}
		resp, err := placeInTwo(r.Context(), pool, tenant, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeBench(w, resp)
	})
}

// placeInTwo is twoTransactions' work and answer.
func placeInTwo(ctx context.Context, pool *pgxpool.Pool, tenant string, body []byte) (*idemimpl.Response, error) {
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer pc.Release()
	var in orderRequest
	var id int64
	if err := pgx.BeginFunc(ctx, pc, func(tx pgx.Tx) error {
		markStep(ctx, 0)
		var err error
		in, id, err = insertOrder(ctx, tx, &idemimpl.Operation{Scope: tenant}, &idemimpl.Request{Body: body})
		return err
	}); err != nil {
		return nil, err
	}
	if err := pgx.BeginFunc(ctx, pc, func(tx pgx.Tx) error {
		markStep(ctx, 1)
		return placeItems(ctx, tx, id, in.Amount)
	}); err != nil {
		return nil, err
	}
	return jsonResponse(http.StatusCreated, map[string]any{"order_id": id, "customer": in.Customer, "amount": in.Amount}), nil
}
