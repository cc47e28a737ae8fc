package main

import (
	"path/filepath"
	"testing"
)

// TestExampleUpToDate runs generate --check on the orders example's
// configuration: the committed example must be what generate writes, so
// that no golden copy of it is needed. go generate ./examples/... rewrites
// it.
func TestExampleUpToDate(t *testing.T) {
	config := filepath.Join("..", "..", "examples", "orders", "idemgen.yaml")
	stdout, stderr, code := runIdemgen("generate", "--config", config, "--check")
	if code != exitOK {
		t.Fatalf("examples/orders differs from what generate writes (exit %d):\n%s%s\nIf the new output is right, run: go generate ./examples/...", code, stdout, stderr)
	}
}
