package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestCLILinksNoExecutor holds the idemgen binary to what its commands
// need: the generator, the spec packages and, for ops, the support
// library with the store's sweep statements; never the executor, its HTTP
// face, the outbox or the face generated code imports. ops sweep runs the
// same sweep as Executor.Maintain through idemops.
func TestCLILinksNoExecutor(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	const mod = "github.com/idemgen/idemgen/runtime/"
	if !slices.Contains(deps, mod+"idemops") || !slices.Contains(deps, mod+"internal/sweep") {
		t.Fatalf("idemgen links neither the support library nor the sweep: %v", deps)
	}
	for _, dep := range deps {
		switch dep {
		case mod + "idem", mod + "idemimpl", mod + "internal/core", mod + "internal/httpapi", mod + "internal/outbox":
			t.Errorf("the idemgen binary links %s", dep)
		}
	}
}
