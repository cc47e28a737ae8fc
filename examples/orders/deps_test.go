package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The service links no test code: its throwaway database comes from
// runtime/pgcluster, not from the test helper runtime/pgtest, and nothing
// it imports pulls in package testing.
func TestNoTestCodeInTheBinary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "testing" || strings.HasPrefix(pkg, "testing/") || strings.HasSuffix(pkg, "/runtime/pgtest") || strings.HasSuffix(pkg, "/runtime/idemtest") {
			t.Errorf("the service imports %s", pkg)
		}
	}
}
