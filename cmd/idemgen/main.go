package main

import (
	"os"
	"runtime/debug"
	"slices"
)

func main() {
	if loadsSpecs(os.Args[1:]) {
		adviseHugePages()
	}
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// loadsSpecs reports whether args run a command that loads specs (check,
// diff, explain, generate): a short process that allocates much, for which
// adviseHugePages pays. ops, which may serve for hours, and help and
// version do not.
func loadsSpecs(args []string) bool {
	return len(args) > 0 && slices.Contains([]string{"check", "diff", "explain", "generate"}, args[0])
}

// tuneGC sets the garbage collector for a short-lived process that
// allocates much more than it keeps: a collection when the heap has grown
// threefold (GOGC=200), and at most 256 MiB of heap before collections come
// as often as needed to stay under it. Generating Adyen v72 allocates about
// 66 MB and keeps at most about 15 MB live, so the heap is collected a few
// times and reused. Letting it grow instead costs a fresh page for each
// 4 KiB allocated, and where a page fault is dear (on a machine measured
// in docs/benchmarks.md, 10-20 µs each) that costs more than collecting;
// in huge pages (adviseHugePages) the faults are few, but the system still
// zeroes each page it hands out, and a heap that grows more takes more
// system time than the collections it saves. A large spec (Stripe) peaks
// well below oapi-codegen; a spec whose live heap passes the limit, more
// than twice Stripe's, gets collections back to back (the runtime caps
// them at half the CPU): raise GOMEMLIMIT for it. GOGC and GOMEMLIMIT in
// the environment win.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(256 << 20)
	}
}
