package main

import (
	"os"
	"runtime/debug"
	"slices"
)

func main() {
	percent := 200
	if loadsSpecs(os.Args[1:]) && adviseHugePages() {
		percent = 400
	}
	tuneGC(percent)
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
// by percent (GOGC), and at most 256 MiB of heap before collections come
// as often as needed to stay under it. Generating Adyen v72 allocates about
// 66 MB and keeps at most about 15 MB live. Each 4 KiB page the heap
// grows into is a page fault, and where one is dear (10-20 µs on a
// machine measured in docs/benchmarks.md) collecting at 200 (the heap
// reused after growing threefold) costs less than growing; with the heap
// in huge pages (adviseHugePages) a fresh page costs little, and main
// passes 400: fewer collections for a larger heap. A large spec (Stripe)
// peaks well below oapi-codegen; a spec whose live heap passes the limit,
// more than twice Stripe's, gets collections back to back (the runtime
// caps them at half the CPU): raise GOMEMLIMIT for it. GOGC and
// GOMEMLIMIT in the environment win.
func tuneGC(percent int) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(percent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(256 << 20)
	}
}
