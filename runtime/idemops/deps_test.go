package idemops_test

import (
	"os/exec"
	"strings"
	"testing"
)

// goListDeps lists the packages pkgs import, transitively.
func goListDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

// idemops stays a runtime library: it imports neither the generator, the
// spec packages, the CLI nor test code; and what generated code imports
// does not pull idemops in.
func TestImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	const mod = "github.com/idemgen/idemgen/"
	for _, pkg := range goListDeps(t, ".") {
		if strings.HasPrefix(pkg, mod+"generator") || strings.HasPrefix(pkg, mod+"spec") || strings.HasPrefix(pkg, mod+"cmd/") ||
			pkg == "testing" || strings.HasSuffix(pkg, "/runtime/pgtest") || strings.HasSuffix(pkg, "/runtime/idemtest") {
			t.Errorf("idemops imports %s", pkg)
		}
	}
	for _, pkg := range goListDeps(t, mod+"runtime/idem", mod+"runtime/idemimpl") {
		if pkg == mod+"runtime/idemops" {
			t.Errorf("what generated code imports pulls in %s", pkg)
		}
	}
}
