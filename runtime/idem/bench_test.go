package idem_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
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

func benchPool(b *testing.B) (*db, *pgxpool.Pool) {
	b.Helper()
	d := newDB(b)
	return d, d.newPool(b, benchParallelism)
}

const benchBody = `{"customer":"c-1","amount":1200,"items":["a","b"]}`

func mustStatus(b *testing.B, r idemtest.Response, want int) {
	if r.Status != want {
		b.Fatalf("status %d body %s, want %d", r.Status, r.Body, want)
	}
}

// BenchmarkBareInsert is the baseline: the same business function in a
// plain transaction of its own, behind a plain handler, no idempotency.
func BenchmarkBareInsert(b *testing.B) {
	_, pool := benchPool(b)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		resp, err := createOrder(ctx, tx, &idem.Operation{Scope: tenant}, &idem.Request{Body: body})
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
	runParallel(b, func(int64) { mustStatus(b, post(h, "tenant-a", "", benchBody), http.StatusCreated) })
}

// BenchmarkNewOperation runs a new operation (fresh key) through the
// runtime: key parsing, fingerprint, claim, business insert, stored
// response, commit.
func BenchmarkNewOperation(b *testing.B) {
	_, pool := benchPool(b)
	h := newHandler(b, pool, orderContract(), idem.Config{}, createOrder)
	runParallel(b, func(i int64) {
		mustStatus(b, post(h, "tenant-a", "new-"+strconv.FormatInt(i, 10), benchBody), http.StatusCreated)
	})
}

// BenchmarkReplay replays completed operations, cycling over 1024 keys.
func BenchmarkReplay(b *testing.B) {
	const keys = 1024
	_, pool := benchPool(b)
	h := newHandler(b, pool, orderContract(), idem.Config{}, createOrder)
	for i := range keys {
		mustStatus(b, post(h, "tenant-a", fmt.Sprintf("replay-%d", i), benchBody), http.StatusCreated)
	}
	runParallel(b, func(i int64) {
		r := post(h, "tenant-a", fmt.Sprintf("replay-%d", i%keys), benchBody)
		if r.Header.Get("Idempotent-Replayed") != "true" {
			b.Fatalf("status %d body %s, want a replay", r.Status, r.Body)
		}
	})
}
