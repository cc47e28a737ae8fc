package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC checks that tuneGC sets the collector's percentage and heap
// limit only where the environment does not.
func TestTuneGC(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	t.Setenv("GOGC", "") // restored after the test
	t.Setenv("GOMEMLIMIT", "")
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	if err := os.Unsetenv("GOMEMLIMIT"); err != nil {
		t.Fatal(err)
	}
	tuneGC()
	if got := debug.SetGCPercent(100); got != 200 {
		t.Errorf("without GOGC: GC percent %d, want 200", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != 256<<20 {
		t.Errorf("without GOMEMLIMIT: heap limit %d, want %d", got, 256<<20)
	}

	// The environment wins.
	t.Setenv("GOGC", "100")
	t.Setenv("GOMEMLIMIT", "1GiB")
	tuneGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set: GC percent %d, want 100 unchanged", got)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set: heap limit %d, want none unchanged", got)
	}
}

// TestLoadsSpecs checks which commands main treats as loading specs, the
// short ones that allocate much (adviseHugePages): not ops, which may
// serve for hours, nor help or version.
func TestLoadsSpecs(t *testing.T) {
	for _, args := range [][]string{{"check", "a.yaml"}, {"diff", "a", "b"}, {"explain", "a.yaml"}, {"generate", "--config", "c.yaml"}} {
		if !loadsSpecs(args) {
			t.Errorf("loadsSpecs(%q) = false, want true", args)
		}
	}
	for _, args := range [][]string{nil, {"ops", "serve"}, {"help", "generate"}, {"version"}, {"--help"}} {
		if loadsSpecs(args) {
			t.Errorf("loadsSpecs(%q) = true, want false", args)
		}
	}
}
