package generator

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGeneratorLinksNoDatabase holds the generator apart from the runtime
// it writes code for: it reads the schema's steps as text
// (runtime/schema/steps) and the pure packages the planner computes with
// (fingerprint's key order, JSON pointers, defaults), never the executor,
// its store, the outbox or a database driver, so the idemgen binary does not
// carry them.
func TestGeneratorLinksNoDatabase(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages; want the generator's packages and their imports", len(deps))
	}
	for _, dep := range deps {
		switch {
		case strings.HasPrefix(dep, "github.com/jackc/pgx"),
			dep == "github.com/idemgen/idemgen/runtime/idem", dep == "github.com/idemgen/idemgen/runtime/idemimpl",
			dep == "github.com/idemgen/idemgen/runtime/schema", strings.HasPrefix(dep, "github.com/idemgen/idemgen/runtime/internal/"):
			t.Errorf("the generator depends on %s", dep)
		}
	}
}
