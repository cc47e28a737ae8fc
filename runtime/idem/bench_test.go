package idem_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
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

// benchParallelism is the number of concurrent requests of the benchmark.
const benchParallelism = 16

// runParallel runs serve on benchParallelism goroutines (SetParallelism
// multiplies by GOMAXPROCS) with a pool of as many connections.
func runParallel(b *testing.B, serve func(i int64)) {
	b.Helper()
	b.SetParallelism(max(1, benchParallelism/runtime.GOMAXPROCS(0)))
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			serve(next.Add(1))
		}
	})
}

// benchRTTEnv names the round-trip time that benchPool's connections add
// to every database round trip, a Go duration such as 1ms: the server as
// if on another host. Unset, they add none. It must stay well below pgx's
// 15 ms slow-write threshold, past which pgx reads in the background and
// rtConn no longer sees the turns.
const benchRTTEnv = "IDEM_BENCH_RTT"

// shopDDL is the benchmark's business schema besides orders: an order's
// items, and the stock they draw from (benchSKUs products, so that 16
// orders in flight rarely wait for each other's stock rows).
const shopDDL = `CREATE TABLE order_items (
	order_id   bigint NOT NULL REFERENCES orders (id),
	line       integer NOT NULL,
	sku        text    NOT NULL,
	quantity   integer NOT NULL,
	unit_price bigint  NOT NULL,
	PRIMARY KEY (order_id, line)
);
CREATE TABLE stock (
	sku      text   PRIMARY KEY,
	quantity bigint NOT NULL
);
INSERT INTO stock (sku, quantity) SELECT 'sku-' || g, 1000000000 FROM generate_series(0, 9999) AS g;
ANALYZE stock`

const benchSKUs = 10000

func benchPool(b *testing.B) (*db, *pgxpool.Pool) {
	b.Helper()
	d := newDB(b)
	if _, err := d.pool.Exec(context.Background(), shopDDL); err != nil {
		b.Fatal(err)
	}
	rtt := time.Duration(0)
	if v := os.Getenv(benchRTTEnv); v != "" {
		var err error
		if rtt, err = time.ParseDuration(v); err != nil || rtt < 0 || rtt >= 10*time.Millisecond {
			b.Fatalf("%s=%q: want a duration from 0 to under 10ms", benchRTTEnv, v)
		}
	}
	if rtt == 0 {
		return d, d.newPool(b, benchParallelism)
	}
	return d, d.newPool(b, benchParallelism, func(cfg *pgxpool.Config) {
		cfg.ConnConfig.DialFunc = dialRT(func(conn net.Conn) *rtConn {
			return &rtConn{Conn: conn, mu: new(sync.Mutex), delay: rtt}
		})
	})
}

const benchBody = `{"customer":"c-1","amount":1200,"items":["a","b"]}`

func mustStatus(tb testing.TB, r idemtest.Response, want int) {
	if r.Status != want {
		tb.Fatalf("status %d body %s, want %d", r.Status, r.Body, want)
	}
}

// placeOrder is the benchmark's business function, a realistic one: an
// order row, its two item rows and the stock update for them, three
// statements in the operation's transaction, each a round trip of its own
// as most services write them. The products come from the order id, so
// concurrent orders touch different stock rows (in one order, lowest
// first).
func placeOrder(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
	in, id, err := insertOrder(ctx, tx, op, req)
	if err != nil {
		return nil, err
	}
	if err := placeItems(ctx, tx, id, in.Amount); err != nil {
		return nil, err
	}
	resp := jsonResponse(http.StatusCreated, map[string]any{"order_id": id, "customer": in.Customer, "amount": in.Amount})
	resp.Header.Set("Location", fmt.Sprintf("/orders/%d", id))
	return resp, nil
}

// placeItems is placeOrder after the order row: the order's two item
// rows and the stock update for them, two statements.
func placeItems(ctx context.Context, tx pgx.Tx, id, amount int64) error {
	a, c := id%benchSKUs, (id+benchSKUs/2)%benchSKUs
	skus := []string{"sku-" + strconv.FormatInt(min(a, c), 10), "sku-" + strconv.FormatInt(max(a, c), 10)}
	if _, err := tx.Exec(ctx, "INSERT INTO order_items (order_id, line, sku, quantity, unit_price) VALUES ($1, 1, $2, 1, $4), ($1, 2, $3, 1, $4)",
		id, skus[0], skus[1], amount/2); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, "UPDATE stock SET quantity = quantity - 1 WHERE sku = ANY($1)", skus)
	return err
}

// BenchmarkCreateOrder compares a new operation through the runtime with
// the same business function (placeOrder) without idempotency, with its
// floor and with the usual middleware, and replays with both. Its
// sub-benchmarks run in turn on one database, so -count 6 interleaves them
// and machine noise hits all of them alike; compare them with benchstat
// -col /path (docs/benchmarks.md):
//
//   - path=bare: the business function in a plain transaction of its own
//     behind a plain handler, no idempotency;
//   - path=floor: bare, plus one INSERT of the completed record pipelined
//     with COMMIT: what any design that stores the response costs at least;
//   - path=advisory, path=claim-first: a new operation (fresh key) through
//     the runtime on each protocol: key parsing, fingerprint, the
//     protocol, the business function, the stored response, commit;
//   - path=middleware: the usual three-transaction idempotency middleware,
//     written here as a reference: the claim committed alone, the business
//     transaction, the response UPDATE;
//   - path=replay-advisory, path=replay-claim-first: retries of completed
//     operations, cycling over 1024 keys.
func BenchmarkCreateOrder(b *testing.B) {
	_, pool := benchPool(b)
	handlers := map[string]http.Handler{
		"bare":       bareHandler(pool, false),
		"floor":      bareHandler(pool, true),
		"middleware": middlewareHandler(pool),
	}
	for _, p := range []idem.Protocol{idem.ProtocolAdvisory, idem.ProtocolClaimFirst} {
		handlers[p.String()] = newHandler(b, pool, orderContract(), idem.Config{Protocol: p}, placeOrder)
	}
	const replayKeys = 1024
	for _, p := range []string{"advisory", "claim-first"} {
		for i := range replayKeys {
			mustStatus(b, post(handlers[p], "tenant-a", fmt.Sprintf("replay-%s-%d", p, i), benchBody), http.StatusCreated)
		}
	}
	var run atomic.Int64 // keeps new keys fresh across repeated runs
	for _, path := range []string{"bare", "floor", "advisory", "claim-first", "middleware"} {
		h := handlers[path]
		b.Run("path="+path, func(b *testing.B) {
			prefix := "new-" + strconv.FormatInt(run.Add(1), 10) + "-"
			runParallel(b, func(i int64) {
				mustStatus(b, post(h, "tenant-a", prefix+strconv.FormatInt(i, 10), benchBody), http.StatusCreated)
			})
		})
	}
	for _, p := range []string{"advisory", "claim-first"} {
		h := handlers[p]
		b.Run("path=replay-"+p, func(b *testing.B) {
			runParallel(b, func(i int64) {
				r := post(h, "tenant-a", fmt.Sprintf("replay-%s-%d", p, i%replayKeys), benchBody)
				if r.Header.Get("Idempotent-Replayed") != "true" {
					b.Fatalf("status %d body %s, want a replay", r.Status, r.Body)
				}
			})
		})
	}
}

// benchRecordInsert is the completed record the floor and the middleware
// write, the record table's own columns.
const benchRecordInsert = `INSERT INTO idempotency_record (scope, idempotency_key, fingerprint, state, operation_id,
	response_status, response_headers, response_body, created_at, completed_at, expires_at, purge_at)
VALUES ($1, $2, $3, 'completed', gen_random_uuid(), $4, $5, $6, $7, $7, $8, $9)`

// bareHandler serves placeOrder without idempotency, in a plain
// transaction; with record, it also inserts the completed record of the
// request's key, pipelined with COMMIT: the floor. Both take a connection
// of their own, so that a COMMIT sent in a batch ends the transaction
// without pgx's Tx sending a ROLLBACK after it.
func bareHandler(pool *pgxpool.Pool, record bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		body, tenant, ok := readBench(w, r)
		if !ok {
			return
		}
		pc, err := pool.Acquire(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer pc.Release()
		tx, err := pc.Begin(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		committed := false
		defer func() {
			if !committed {
				_ = tx.Rollback(context.WithoutCancel(ctx))
			}
		}()
		resp, err := placeOrder(ctx, tx, &idemimpl.Operation{Scope: tenant}, &idemimpl.Request{Body: body})
		switch {
		case err != nil:
		case record:
			var header []byte
			if header, err = json.Marshal(resp.Header); err != nil {
				break
			}
			now, sum := time.Now(), sha256.Sum256(body)
			var b pgx.Batch
			b.Queue(benchRecordInsert, tenant, r.Header.Get("Idempotency-Key"), sum[:], resp.Status, string(header), resp.Body,
				now, now.Add(24*time.Hour), now.Add(48*time.Hour))
			b.Queue("COMMIT")
			err = tx.SendBatch(ctx, &b).Close()
			committed = err == nil
		default:
			err, committed = tx.Commit(ctx), true
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeBench(w, resp)
	})
}

// middlewareHandler is the usual idempotency middleware, the reference a
// new operation is compared with: the claim (an in-progress record)
// committed alone, the business transaction, then the response stored by
// an UPDATE in a third transaction. Only new keys reach it here; a real
// one also reads the record when the claim finds it.
func middlewareHandler(pool *pgxpool.Pool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		body, tenant, ok := readBench(w, r)
		if !ok {
			return
		}
		key, now, sum := r.Header.Get("Idempotency-Key"), time.Now(), sha256.Sum256(body)
		tag, err := pool.Exec(ctx, `INSERT INTO idempotency_record (scope, idempotency_key, fingerprint, state, operation_id,
			created_at, expires_at, purge_at) VALUES ($1, $2, $3, 'in_progress', gen_random_uuid(), $4, $5, $6)
			ON CONFLICT (scope, idempotency_key) DO NOTHING`, tenant, key, sum[:], now, now.Add(24*time.Hour), now.Add(48*time.Hour))
		if err == nil && tag.RowsAffected() != 1 {
			err = fmt.Errorf("key %s taken", key)
		}
		var resp *idemimpl.Response
		if err == nil {
			err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				var err error
				resp, err = placeOrder(ctx, tx, &idemimpl.Operation{Scope: tenant}, &idemimpl.Request{Body: body})
				return err
			})
		}
		var header []byte
		if err == nil {
			header, err = json.Marshal(resp.Header)
		}
		if err == nil {
			_, err = pool.Exec(ctx, `UPDATE idempotency_record SET state = 'completed', response_status = $3,
				response_headers = $4, response_body = $5, completed_at = $6 WHERE scope = $1 AND idempotency_key = $2`,
				tenant, key, resp.Status, string(header), resp.Body, time.Now())
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeBench(w, resp)
	})
}

// readBench reads a benchmark request's body and scope, answering the
// error itself when it cannot.
func readBench(w http.ResponseWriter, r *http.Request) (body []byte, tenant string, ok bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, "", false
	}
	if tenant, err = tenantScope(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return nil, "", false
	}
	return body, tenant, true
}

// writeBench writes resp.
func writeBench(w http.ResponseWriter, resp *idemimpl.Response) {
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
