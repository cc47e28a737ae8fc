package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The effects the example's createOrder enqueues, in name order.
var orderEffects = []string{"confirmation_email", "reserve_stock"}

// idleBound bounds the wait for the worker to finish every effect.
const idleBound = 2 * time.Minute

// Must show 5a: 50 concurrent orders, 25 keys each sent twice, give one
// order per key and, once the worker is idle, exactly one provider call
// per order and effect, under the effect key the outbox holds.
func TestConcurrentOrdersRunEachEffectOnce(t *testing.T) {
	s := startServer(t)
	ctx, stop := context.WithCancel(t.Context())
	w, err := newWorker(s.pool, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	})

	const keys = 25
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 2 * keys}}
	defer client.CloseIdleConnections()
	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[string]map[string]bool{} // key → order ids answered
	var failures []string
	for i := range 2 * keys {
		key := fmt.Sprintf("burst-%d", i%keys)
		body := orderJSON(5000+i%keys, "SKU-1", "1")
		wg.Go(func() {
			<-start
			status, id, err := postOrder(client, s.addr, key, body)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || status != http.StatusCreated {
				failures = append(failures, fmt.Sprintf("%s: %d %v", key, status, err))
				return
			}
			if ids[key] == nil {
				ids[key] = map[string]bool{}
			}
			ids[key][id] = true
		})
	}
	close(start)
	wg.Wait()
	for _, f := range failures {
		t.Errorf("order not created: %s", f)
	}
	if len(ids) != keys {
		t.Fatalf("%d keys answered, want %d", len(ids), keys)
	}
	orders := map[string]bool{}
	for key, got := range ids {
		if len(got) != 1 {
			t.Errorf("key %s answered %d different orders, want 1", key, len(got))
		}
		for id := range got {
			orders[id] = true
		}
	}
	waitIdle(t, s.pool, keys*len(orderEffects))

	calls := providerCalls(t, s.pool)
	if len(calls) != keys*len(orderEffects) {
		t.Errorf("%d provider calls, want %d (one per order and effect)", len(calls), keys*len(orderEffects))
	}
	for id := range orders {
		for _, effect := range orderEffects {
			got := calls[orderEffect{id, effect}]
			switch {
			case len(got) != 1:
				t.Errorf("order %s, %s: %d calls, want 1", id, effect, len(got))
			case got[0].key != got[0].outboxKey || got[0].duplicate || got[0].state != "done":
				t.Errorf("order %s, %s: call %+v, want under the outbox's key, acted on, done", id, effect, got[0])
			}
		}
	}
	t.Logf("%d requests, %d orders, %d provider calls", 2*keys, len(orders), len(calls))
}

// postOrder sends one createOrder and returns the status and the order's
// id.
func postOrder(client *http.Client, addr, key, body string) (int, string, error) {
	a, err := sendOrder(client, addr, key, body)
	return a.status, a.id, err
}

// orderAnswer is the answer to one createOrder: its status, the order's id
// of a 201, the problem type of a problem, the body as sent and whether it
// was a replay (Idempotent-Replayed).
type orderAnswer struct {
	status      int
	id, problem string
	body        string
	replayed    bool
}

// sendOrder sends one createOrder under key as tenant-a.
func sendOrder(client *http.Client, addr, key, body string) (orderAnswer, error) {
	req, err := http.NewRequest("POST", "http://"+addr+"/orders", strings.NewReader(body))
	if err != nil {
		return orderAnswer{}, err
	}
	req.Header.Set("Authorization", "Bearer tenant-a")
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return orderAnswer{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	a := orderAnswer{status: resp.StatusCode, body: string(raw), replayed: resp.Header.Get("Idempotent-Replayed") == "true"}
	if err != nil {
		return a, err
	}
	var doc struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if resp.StatusCode == http.StatusCreated || strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		if err := json.Unmarshal(raw, &doc); err != nil {
			return a, err
		}
	}
	a.id, a.problem = doc.ID, doc.Type
	if resp.StatusCode != http.StatusCreated {
		a.id = ""
	}
	return a, nil
}

// waitIdle polls the outbox until it holds at least want effects and none
// of them is left to run, failing the test after idleBound. A poll, not a
// sleep: the test proceeds as soon as the worker is idle.
func waitIdle(t *testing.T, pool *pgxpool.Pool, want int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), idleBound)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var total, open int
		err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state <> 'done')
			FROM idempotency.idempotency_outbox`).Scan(&total, &open)
		if err == nil && total >= want && open == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the worker is not idle after %v: %d effects, %d not done (want %d done), last error %v", idleBound, total, open, want, err)
		case <-tick.C:
		}
	}
}

// orderEffect is one effect of one order.
type orderEffect struct {
	order, effect string
}

// providerCall is one row of provider_calls with its effect's outbox row.
type providerCall struct {
	key, outboxKey, state string
	attempt               int
	duplicate             bool
}

// providerCalls returns every provider call by order and effect, joined
// to the outbox row of that order's effect (the order's id is its
// operation's id).
func providerCalls(t *testing.T, pool *pgxpool.Pool) map[orderEffect][]providerCall {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT c.order_id, c.effect, c.effect_key, coalesce(o.effect_key, ''), coalesce(o.state, ''), c.attempt, c.duplicate
		FROM provider_calls c
		LEFT JOIN idempotency.idempotency_outbox o ON o.operation_id::text = c.order_id AND o.effect = c.effect
		ORDER BY c.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[orderEffect][]providerCall{}
	for rows.Next() {
		var oe orderEffect
		var c providerCall
		if err := rows.Scan(&oe.order, &oe.effect, &c.key, &c.outboxKey, &c.state, &c.attempt, &c.duplicate); err != nil {
			t.Fatal(err)
		}
		out[oe] = append(out[oe], c)
	}
	if err := rows.Err(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	return out
}
