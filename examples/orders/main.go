// Command orders is idemgen's example service: an order API on PostgreSQL
// whose POST /orders and POST /orders/{order-id}/cancel are idempotent.
// The business logic is in shop/service.go; everything else in shop is
// generated from openapi.yaml by go generate.
//
// It connects to DATABASE_URL or, when that is unset, starts a throwaway
// PostgreSQL cluster with the machine's initdb (removed on exit):
//
//	go run ./examples/orders -addr 127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
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
	"github.com/idemgen/idemgen/runtime/pgtest"
)

// idempotencySchema is where the idempotency tables live (idemgen.yaml's
// schema).
const idempotencySchema = "idempotency"

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to serve on")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *addr, log); err != nil {
		log.Error("orders", "err", err)
		os.Exit(1)
	}
}

func serve(ctx context.Context, addr string, log *slog.Logger) error {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		cluster, err := pgtest.StartCluster(ctx)
		if err != nil {
			return fmt.Errorf("DATABASE_URL is unset and no throwaway cluster could start: %w", err)
		}
		defer cluster.Stop()
		url = cluster.URL()
		log.Info("DATABASE_URL is unset: started a throwaway PostgreSQL cluster, removed on exit")
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := idem.Migrate(ctx, pool, idempotencySchema); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, shop.SchemaSQL); err != nil {
		return fmt.Errorf("shop schema: %w", err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: idempotencySchema, Logger: log})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	if err := shop.Register(mux, exec, shop.Service{}, demoTenant); err != nil {
		return err
	}
	mux.HandleFunc("GET /orders/{order_id}", func(w http.ResponseWriter, r *http.Request) {
		getOrder(w, r, pool)
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("serving", "addr", "http://"+addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// demoTenant is the example's stand-in for authentication: it takes the
// tenant from "Authorization: Bearer <tenant>". A real service replaces it
// with the tenant its authentication middleware established; the scope
// must never come from the request body.
func demoTenant(r *http.Request) (string, error) {
	tenant, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tenant == "" {
		return "", errors.New("no bearer token")
	}
	return tenant, nil
}
