//go:build long

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// childLease is the effect lease of the example processes the crash test
// runs: a killed process's effects are taken over after it.
const childLease = 2 * time.Second

// Must show 5b: the example server, a child process, is killed with
// SIGKILL during a burst of orders (some committed, some in flight, their
// effects in every state) and started again; the clients retry every key.
// Every committed order's effects end done, each executed under one effect
// key (the outbox's), acted on once by the provider.
func TestKilledServerStillRunsEveryEffectOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example as a child process")
	}
	bin := filepath.Join(t.TempDir(), "orders")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	url := pgtest.Database(t)
	logs := filepath.Join(t.TempDir(), "orders.log")

	first := startChild(t, bin, url, logs)
	// The burst: senders s and s+4 send the same keys in the same order, one
	// request after the other, so that duplicates meet while the worker
	// is already executing the first orders' effects.
	const senders, perSender = 8, 20
	const keys = senders / 2 * perSender
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: senders}}
	defer client.CloseIdleConnections()
	created := make(chan struct{}, 2*keys) // one per 201 before the kill
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	before := map[string]string{} // key → order id answered before the kill
	for s := range senders {
		wg.Go(func() {
			<-start
			for j := range perSender {
				n := s%(senders/2)*perSender + j
				key := fmt.Sprintf("crash-%d", n)
				status, id, err := postOrder(client, first.addr, key, orderJSON(7000+n, "SKU-2", "1"))
				if err != nil {
					return // cut off by the kill
				}
				if status != http.StatusCreated {
					continue // a duplicate that met its first at the kill
				}
				mu.Lock()
				if prev, ok := before[key]; ok && prev != id {
					t.Errorf("key %s answered orders %s and %s", key, prev, id)
				}
				before[key] = id
				mu.Unlock()
				created <- struct{}{}
			}
		})
	}
	pool, err := pgxpool.New(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	close(start)
	<-created
	waitFirstCall(t, pool) // orders committed, the worker at work: kill now
	first.kill(t)
	wg.Wait()
	client.CloseIdleConnections()

	var committed, open int
	if err := pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM orders),
		(SELECT count(*) FROM idempotency.idempotency_outbox WHERE state <> 'done')`).Scan(&committed, &open); err != nil {
		t.Fatal(err)
	}

	second := startChild(t, bin, url, logs)
	after := map[string]string{}
	for n := range keys {
		key := fmt.Sprintf("crash-%d", n)
		status, id, err := postOrder(client, second.addr, key, orderJSON(7000+n, "SKU-2", "1"))
		if err != nil || status != http.StatusCreated {
			t.Fatalf("retry of %s after the restart: %d %v", key, status, err)
		}
		if prev, ok := before[key]; ok && prev != id {
			t.Errorf("key %s: order %s before the kill, %s after", key, prev, id)
		}
		after[key] = id
	}

	var orders int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM orders").Scan(&orders); err != nil {
		t.Fatal(err)
	}
	if orders != keys {
		t.Errorf("%d orders, want %d (one per key)", orders, keys)
	}
	waitIdle(t, pool, keys*len(orderEffects))

	calls := providerCalls(t, pool)
	repeats := 0
	for key, id := range after {
		for _, effect := range orderEffects {
			got := calls[orderEffect{id, effect}]
			if len(got) == 0 {
				t.Errorf("%s (order %s), %s: never called", key, id, effect)
				continue
			}
			keysSeen, acted := map[string]bool{}, 0
			for _, c := range got {
				keysSeen[c.key] = true
				if !c.duplicate {
					acted++
				}
				if c.key != c.outboxKey || c.state != "done" {
					t.Errorf("%s (order %s), %s: call %+v, want under the outbox's key, done", key, id, effect, c)
				}
			}
			if len(keysSeen) != 1 || acted != 1 {
				t.Errorf("%s (order %s), %s: %d calls under %d effect keys, acted on %d times; want one key, acted on once", key, id, effect, len(got), len(keysSeen), acted)
			}
			repeats += len(got) - 1
		}
	}
	t.Logf("SIGKILL with %d of %d keys answered, %d orders committed and %d effects not done; after the restart %d orders, %d effects done, %d repeated calls (deduplicated by key)",
		len(before), keys, committed, open, orders, keys*len(orderEffects), repeats)
}

// waitFirstCall polls provider_calls until the worker has made its first
// call, failing the test after a minute.
func waitFirstCall(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		var n int
		err := pool.QueryRow(ctx, "SELECT count(*) FROM provider_calls").Scan(&n)
		if err == nil && n > 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no provider call within a minute: %v", err)
		case <-tick.C:
		}
	}
}

// child is one example server process.
type child struct {
	addr string
	cmd  *exec.Cmd
	done chan struct{}
}

// startChild starts the example binary on a free loopback port with the
// database url and waits until it answers HTTP; its output goes to logs.
// At the end of the test it is stopped with SIGTERM.
func startChild(t *testing.T, bin, url, logs string) *child {
	t.Helper()
	return startChildAt(t, bin, url, logs, freeAddr(t))
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startChildAt is startChild on addr, so that a restarted process serves
// where its clients already send.
func startChildAt(t *testing.T, bin, url, logs, addr string) *child {
	t.Helper()
	out, err := os.OpenFile(logs, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-addr", addr, "-effect-lease", childLease.String())
	cmd.Env = append(os.Environ(), "DATABASE_URL="+url)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{addr: addr, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = out.Close()
		close(c.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-c.done
		if t.Failed() {
			b, _ := os.ReadFile(logs)
			t.Logf("example output:\n%s", b)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get("http://" + addr + "/orders/none")
		if err == nil {
			_ = resp.Body.Close()
			return c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the example does not answer on %s: %v", addr, err)
		case <-c.done:
			t.Fatalf("the example exited before answering")
		case <-tick.C:
		}
	}
}

// kill ends the process with SIGKILL and waits until it is gone.
func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-c.done
}
