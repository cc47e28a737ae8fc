package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// TestCollectAtLimitOnly checks that generate's collector setting turns
// collection off only under a heap limit and without GOGC in the
// environment, and that restoring it gives back the percentage it found.
func TestCollectAtLimitOnly(t *testing.T) {
	t.Setenv("GOGC", "") // restores GOGC after the test
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	oldPercent := debug.SetGCPercent(150)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})

	// No limit: collection stays on.
	collectAtLimitOnly()()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("without a heap limit: GC percent %d, want 150 unchanged", got)
	}

	// A limit: off until restore, then as before.
	debug.SetMemoryLimit(256 << 20)
	restore := collectAtLimitOnly()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("under a heap limit: GC percent %d, want -1 (off)", got)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Fatalf("after restore: GC percent %d, want 150", got)
	}

	// GOGC in the environment wins.
	t.Setenv("GOGC", "100")
	collectAtLimitOnly()()
	restore = collectAtLimitOnly()
	got := debug.SetGCPercent(150)
	restore()
	if got != 150 {
		t.Fatalf("with GOGC set: GC percent %d, want 150 unchanged", got)
	}
}
