package core_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The core knows nothing of any transport: no package it depends on, its
// own included, is net/http, an adapter of the runtime (httpapi, a
// consumer) or a face (idem, idemimpl); so no HTTP type can appear in its
// API.
func TestCoreKnowsNoTransport(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch {
		case pkg == "net/http", strings.HasPrefix(pkg, "net/http/"),
			strings.HasSuffix(pkg, "/runtime/internal/httpapi"), strings.HasSuffix(pkg, "/runtime/idem"),
			strings.HasSuffix(pkg, "/runtime/idemimpl"), strings.HasPrefix(pkg, "github.com/idemgen/idemgen/generator"), strings.HasPrefix(pkg, "github.com/idemgen/idemgen/spec"):
			t.Errorf("runtime/internal/core depends on %s", pkg)
		}
	}
}
