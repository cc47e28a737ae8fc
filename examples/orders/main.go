// Command orders is idemgen's example service: an order API on PostgreSQL
// whose POST /orders and POST /orders/{order-id}/cancel are idempotent.
// The business logic is in shop/service.go; everything else in shop is
// generated from openapi.yaml by go generate.
//
// It connects to DATABASE_URL or, when that is unset, starts a throwaway
// PostgreSQL cluster with the machine's initdb (runtime/pgcluster, removed
// on exit) and prints its URL:
//
//	go run ./examples/orders -addr 127.0.0.1:8080
//
// The process also runs the effect worker (effects.go), on a pool of its
// own, so that requests never wait behind its work: the demo providers
// in providers/ record every call in the table provider_calls.
//
// It is meant to be copied: the server's limits are in server.go, the
// stand-in for authentication is demoTenant below.
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/examples/orders/shop"
	"github.com/idemgen/idemgen/runtime/idem"
)

// idempotencySchema is where the idempotency tables live (idemgen.yaml's
// schema).
const idempotencySchema = "idempotency"

// shutdownTimeout bounds how long the requests in flight may finish after
// SIGINT or SIGTERM.
const shutdownTimeout = 10 * time.Second

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve on")
	lease := flag.Duration("effect-lease", time.Minute, "how long the effect worker holds an effect it claimed; a crashed process's effects are taken over after it")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *lease, log); err != nil {
		log.Error("orders", "err", err)
		os.Exit(1)
	}
}

// run opens the database, builds the service and its effect worker and
// serves it on addr until ctx ends.
func run(ctx context.Context, addr string, lease time.Duration, log *slog.Logger) error {
	url, closeDB, err := openDatabase(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	h, err := newService(ctx, pool, log)
	if err != nil {
		return err
	}
	// The effect worker has a pool of its own: on the service's, its
	// claims, records and calls would wait for the same few connections
	// as the requests, and a tenant whose orders fill the outbox would
	// slow every other tenant's requests (docs/benchmarks.md, issue 23).
	workerPool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer workerPool.Close()
	worker, err := newWorker(workerPool, lease, log)
	if err != nil {
		return err
	}
	workerCtx, stopWorker := context.WithCancel(ctx)
	workerDone := make(chan error, 1)
	go func() { workerDone <- worker.Run(workerCtx) }()
	defer func() {
		stopWorker() // when the server failed to start, ctx has not ended
		if err := <-workerDone; err != nil {
			log.Error("effect worker stopped", "error", err)
		}
	}()
	srv := newServer(addr, h, defaultLimits)
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("serving", "addr", "http://"+addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newService creates the tables the service needs on pool (the
// idempotency tables, the shop's and the demo providers'), starts the
// idempotency maintenance (retention) until ctx ends and returns its
// routes: the generated idempotent operations and the plain read.
func newService(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (http.Handler, error) {
	if err := idem.Migrate(ctx, pool, idempotencySchema); err != nil {
		return nil, err
	}
	if err := createTables(ctx, pool); err != nil {
		return nil, err
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: idempotencySchema, Logger: log})
	if err != nil {
		return nil, err
	}
	// Retention: records become tombstones after 72h and are purged after
	// the tombstone period, in bounded batches, until ctx ends.
	go func() {
		if err := exec.Maintain(ctx, idem.MaintainOptions{}); err != nil {
			log.Error("maintenance stopped", "error", err)
		}
	}()
	mux := http.NewServeMux()
	if err := shop.Register(mux, exec, shop.Service{}, demoTenant); err != nil {
		return nil, err
	}
	mux.HandleFunc("GET /orders/{order_id}", func(w http.ResponseWriter, r *http.Request) {
		getOrder(w, r, pool, log)
	})
	return mux, nil
}

// demoTenant is the example's stand-in for authentication: it takes the
// tenant from "Authorization: Bearer <tenant>", the tenant being an RFC
// 9110 token68 (letters, digits and -._~+/, then any = padding) after
// exactly one space, and refuses anything else ("Bearer  x" is not the
// tenant " x", "Bearer a b" not "a b") and a request that names two
// callers, with a 401 that tells the client what to send (missingTenant).
// A real service replaces it with the tenant its authentication
// middleware established; the scope must never come from the request
// body. The generated handlers call it before they read the body, so a
// request without a caller costs no more than its header.
func demoTenant(r *http.Request) (string, error) {
	if len(r.Header.Values("Authorization")) > 1 {
		return "", missingTenant
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !token68(token) {
		return "", missingTenant
	}
	return token, nil
}

// missingTenant answers a request without one usable bearer token: the
// same words whatever was wrong with it, naming only what to send.
var missingTenant = &idem.Unauthenticated{Challenge: `Bearer realm="orders"`,
	Detail: "Send one Authorization field: Bearer <tenant>, the tenant a token68."}

// token68 reports whether s is an RFC 9110 token68: one or more of
// letters, digits and -._~+/, followed by any number of =.
func token68(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}
