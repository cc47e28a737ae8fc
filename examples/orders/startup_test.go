package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// TestInstancesStartAtOnce is the reproduction of three instances started
// at once on an empty database, of which one or two exited: their
// CREATE TABLE IF NOT EXISTS statements raced (a unique violation in
// PostgreSQL's catalog). Each instance has a pool of its own, as a
// process does; they set up the service together, released by one
// barrier, and every one must come up, with the tables there once.
func TestInstancesStartAtOnce(t *testing.T) {
	const instances = 4
	url := pgtest.Database(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	start := make(chan struct{})
	errs := make([]error, instances)
	var wg sync.WaitGroup
	for i := range instances {
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		// One connection each, open before the barrier, so the instances
		// reach the database together.
		if err := pool.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = newService(ctx, pool, log)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("instance %d did not start: %v", i, err)
		}
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var stock int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM stock`).Scan(&stock); err != nil || stock != 3 {
		t.Errorf("%d stock rows, %v; want the 3 seeded once", stock, err)
	}
}

// TestDemoTenantIsStrict is the reproduction of the demo authentication
// that took "Bearer  x" as the tenant " x" and "Bearer a b" as "a b": only
// the Bearer scheme (in any case, as RFC 9110 compares schemes), one
// space and a token68 name a tenant.
func TestDemoTenantIsStrict(t *testing.T) {
	for value, want := range map[string]string{
		"Bearer tenant-a":    "tenant-a",
		"bearer tenant-a":    "tenant-a",
		"Bearer dGVuYW50==":  "dGVuYW50==",
		"Bearer a.b_c~d+e/f": "a.b_c~d+e/f",
		"Bearer  x":          "",
		"Bearer a b":         "",
		"Bearer x ":          "",
		"Bearer\tx":          "",
		"Bearer":             "",
		"Bearer ":            "",
		"Bearer =":           "",
		"Bearer a=b":         "",
		"Bearer é":           "",
		"Bearer a,b":         "",
		"Bearerx y":          "",
		"Basic dXNlcg==":     "",
		"":                   "",
	} {
		r := httptest.NewRequest(http.MethodPost, "/orders", nil)
		if value != "" {
			r.Header["Authorization"] = []string{value}
		}
		got, err := demoTenant(r)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("Authorization %q: tenant %q, %v; want %q", value, got, err, want)
		}
	}
}
