package main

import (
	"math"
	"os"
	"runtime/debug"
)

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC sets the garbage collector for a short-lived process that
// allocates a lot: a collection only when the heap has grown fivefold
// (GOGC=400), and at most 256 MiB of heap before collections come as
// often as needed to stay under it. A small spec then runs with few or no
// collections, and a large one (Stripe) peaks well below oapi-codegen
// (docs/benchmarks.md; Stripe's live heap tops out near 115 MiB). A spec
// whose live heap passes the limit, more than twice Stripe's, gets
// collections back to back (the runtime caps them at half the CPU); raise
// GOMEMLIMIT for it. GOGC and GOMEMLIMIT in the environment win.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(400)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(256 << 20)
	}
}

// collectAtLimitOnly turns collection off until the heap reaches the
// limit tuneGC set, for the length of a generate, and returns what puts
// the collector back as it was. generate is short and allocates much more
// than it keeps (Adyen v72 and Twilio never reach the limit, Stripe
// collects at it), so collections before the limit only cost CPU:
// docs/benchmarks.md, issue 24. Without a limit (a test calling run, or
// GOMEMLIMIT=off) or with GOGC in the environment it changes nothing.
func collectAtLimitOnly() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set || debug.SetMemoryLimit(-1) == math.MaxInt64 {
		return func() {}
	}
	old := debug.SetGCPercent(-1)
	return func() { debug.SetGCPercent(old) }
}
