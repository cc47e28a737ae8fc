package idem_test

import (
	"context"
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

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// benchParallelism is the number of concurrent requests of Must show 10.
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

func benchPool(b *testing.B) (*db, *pgxpool.Pool) {
	b.Helper()
	d := newDB(b)
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

func mustStatus(b *testing.B, r idemtest.Response, want int) {
	if r.Status != want {
		b.Fatalf("status %d body %s, want %d", r.Status, r.Body, want)
	}
}

// BenchmarkCreateOrder is Must show 10. Its sub-benchmarks run in turn on
// one database, so -count 6 interleaves them and machine noise hits all
// three alike; compare them with benchstat -col /path:
//
//   - path=bare: the baseline, the same business function in a plain
//     transaction of its own behind a plain handler, no idempotency;
//   - path=new: a new operation (fresh key) through the runtime: key
//     parsing, fingerprint, claim, business insert, stored response, commit;
//   - path=replay: retries of completed operations, cycling over 1024 keys.
func BenchmarkCreateOrder(b *testing.B) {
	_, pool := benchPool(b)
	bare := bareHandler(pool)
	h := newHandler(b, pool, orderContract(), idem.Config{}, createOrder)
	const replayKeys = 1024
	for i := range replayKeys {
		mustStatus(b, post(h, "tenant-a", fmt.Sprintf("replay-%d", i), benchBody), http.StatusCreated)
	}
	var run atomic.Int64 // keeps new keys fresh across repeated runs
	b.Run("path=bare", func(b *testing.B) {
		runParallel(b, func(int64) { mustStatus(b, post(bare, "tenant-a", "", benchBody), http.StatusCreated) })
	})
	b.Run("path=new", func(b *testing.B) {
		prefix := "new-" + strconv.FormatInt(run.Add(1), 10) + "-"
		runParallel(b, func(i int64) {
			mustStatus(b, post(h, "tenant-a", prefix+strconv.FormatInt(i, 10), benchBody), http.StatusCreated)
		})
	})
	b.Run("path=replay", func(b *testing.B) {
		runParallel(b, func(i int64) {
			r := post(h, "tenant-a", fmt.Sprintf("replay-%d", i%replayKeys), benchBody)
			if r.Header.Get("Idempotent-Replayed") != "true" {
				b.Fatalf("status %d body %s, want a replay", r.Status, r.Body)
			}
		})
	})
}

// bareHandler serves createOrder without idempotency, in a plain
// transaction.
func bareHandler(pool *pgxpool.Pool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		tenant, err := tenantScope(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		tx, err := pool.Begin(ctx)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
		resp, err := createOrder(ctx, tx, &idemimpl.Operation{Scope: tenant}, &idemimpl.Request{Body: body})
		if err == nil {
			err = tx.Commit(ctx)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.Status)
		_, _ = w.Write(resp.Body)
	})
}
