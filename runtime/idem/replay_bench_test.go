package idem_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
)

// replayStormKeys and replayStormClients shape BenchmarkReplayStorm: the
// completed operations replayed, and the clients replaying them at once.
const (
	replayStormKeys    = 1000
	replayStormClients = 64
)

// BenchmarkReplayStorm: 64 clients replay 1,000 completed operations
// against one executor, in the same run as the same executor without its
// replay cache (advisory's one-round-trip replay) and as the bare
// transaction of a new order without idempotency. round-trips/op counts
// the database round trips per request: a cached replay makes none once
// its record was read (1,000 reads at most per run of the cached path).
func BenchmarkReplayStorm(b *testing.B) {
	d := newDB(b)
	if _, err := d.pool.Exec(context.Background(), shopDDL); err != nil {
		b.Fatal(err)
	}
	rt := newRoundTrips(b, d, replayStormClients)
	handlers := map[string]http.Handler{
		"cached":   newHandler(b, rt.pool, orderContract(), idem.Config{Protocol: idem.ProtocolAdvisory}, placeOrder),
		"database": newHandler(b, rt.pool, orderContract(), idem.Config{Protocol: idem.ProtocolAdvisory, ReplayCacheBytes: -1}, placeOrder),
		"bare":     bareHandler(rt.pool, false),
	}
	for i := range replayStormKeys {
		mustStatus(b, post(handlers["database"], "tenant-a", fmt.Sprintf("storm-%d", i), benchBody), http.StatusCreated)
	}
	for _, path := range []string{"cached", "database", "bare"} {
		h := handlers[path]
		b.Run("path="+path, func(b *testing.B) {
			b.SetParallelism(max(1, replayStormClients/runtime.GOMAXPROCS(0)))
			var next atomic.Int64
			trips := rt.measure(func() {
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						i := next.Add(1) % replayStormKeys
						r := post(h, "tenant-a", fmt.Sprintf("storm-%d", i), benchBody)
						if path == "bare" {
							mustStatus(b, r, http.StatusCreated)
						} else if r.Header.Get("Idempotent-Replayed") != "true" {
							b.Fatalf("status %d body %s, want a replay", r.Status, r.Body)
						}
					}
				})
				b.StopTimer()
			})
			b.ReportMetric(float64(trips)/float64(b.N), "round-trips/op")
		})
	}
}
