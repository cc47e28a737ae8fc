package main

import (
	"net/http"
	"testing"
)

// BenchmarkStatusLookup times GET /orders/attempts/{key} as tenant-b for
// a key tenant-a used (kind=other_tenant) and for a key no one sent
// (kind=unknown), on one service and database. Both must cost the same
// beyond noise: run it several times, so the two kinds interleave, and
// compare them with benchstat -col /kind (docs/benchmarks.md).
func BenchmarkStatusLookup(b *testing.B) {
	s := newStatusService(b)
	if a := s.create("tenant-a", "k-bench", "bench", "SKU-1", 1); a.status != http.StatusCreated {
		b.Fatalf("tenant-a's order: %+v", a)
	}
	for _, bc := range []struct{ kind, key string }{{"unknown", "k-absent"}, {"other_tenant", "k-bench"}} {
		b.Run("kind="+bc.kind, func(b *testing.B) {
			for b.Loop() {
				if a, _ := s.lookup("tenant-b", bc.key); a.status != http.StatusNotFound {
					b.Fatalf("lookup of %s: %+v", bc.key, a)
				}
			}
		})
	}
}
