package idem_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// Must show 1: 64 goroutines over 4 pools send one key, 200 rounds
// (duplicateRounds: 25 outside the long build); every round creates exactly
// one order, all 64 responses are byte-identical and none is a 5xx.
func TestConcurrentDuplicatesExecuteOnce(t *testing.T) {
	const (
		rounds     = duplicateRounds
		goroutines = 64
		pools      = 4
	)
	d := newDB(t)
	c := orderContract()
	c.WaitTimeout = time.Minute // this test is about exactly-once; a loaded machine must not turn waits into 409s
	handlers := make([]http.Handler, pools)
	for i := range handlers {
		handlers[i] = newHandler(t, d.newPool(t, 8), c, idem.Config{}, createOrder)
	}
	body := `{"customer":"c-1","amount":1200,"items":["a","b"]}`
	for round := range rounds {
		key := fmt.Sprintf(`"round-%03d"`, round)
		got := idemtest.Concurrently(goroutines, func(i int) idemtest.Response {
			return post(handlers[i%pools], "tenant-a", key, body)
		})
		for i, r := range got {
			if r.Status != http.StatusCreated {
				t.Fatalf("round %d goroutine %d: status %d, body %s", round, i, r.Status, r.Body)
			}
			if !bytes.Equal(r.Body, got[0].Body) {
				t.Fatalf("round %d goroutine %d: body %s, want %s", round, i, r.Body, got[0].Body)
			}
			if r.Header.Get("Location") != got[0].Header.Get("Location") {
				t.Fatalf("round %d goroutine %d: Location %q, want %q", round, i, r.Header.Get("Location"), got[0].Header.Get("Location"))
			}
		}
		var replayed int
		for _, r := range got {
			if r.Header.Get("Idempotent-Replayed") == "true" {
				replayed++
			}
		}
		if replayed != goroutines-1 {
			t.Fatalf("round %d: %d replays, want %d", round, replayed, goroutines-1)
		}
		if n := d.count(t, "SELECT count(*) FROM orders"); n != round+1 {
			t.Fatalf("%d orders after round %d, want one per round", n, round)
		}
	}
	if n := d.count(t, "SELECT count(DISTINCT idempotency_key) FROM idempotency_record WHERE state = 'completed'"); n != rounds {
		t.Errorf("%d completed records, want %d", n, rounds)
	}
}
