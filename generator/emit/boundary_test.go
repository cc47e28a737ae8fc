package emit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEmittersReadOnlyTheIR holds the boundary of the emitters: neither
// they nor the IR they print depend on the spec, on kin-openapi or on the
// planner, so no emitter can look past the IR and decide something; nor on
// the runtime, whose names the emitters write as text.
func TestEmittersReadOnlyTheIR(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, pkg := range []string{"github.com/idemgen/idemgen/generator/emit", "github.com/idemgen/idemgen/generator/ir"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 {
			t.Fatalf("go list -deps %s listed %d packages; want the package and its imports", pkg, len(deps))
		}
		for _, dep := range deps {
			switch {
			case dep == "github.com/idemgen/idemgen/spec", strings.HasPrefix(dep, "github.com/idemgen/idemgen/spec/"):
				t.Errorf("%s depends on %s: the emitters must read only the IR", pkg, dep)
			case strings.HasPrefix(dep, "github.com/getkin/kin-openapi"):
				t.Errorf("%s depends on %s: the emitters must read only the IR", pkg, dep)
			case dep == "github.com/idemgen/idemgen/generator":
				t.Errorf("%s depends on the planner", pkg)
			case strings.HasPrefix(dep, "github.com/idemgen/idemgen/runtime/"), strings.HasPrefix(dep, "github.com/jackc/pgx"):
				t.Errorf("%s depends on %s: the IR is plain data and the emitters name the runtime with Qual", pkg, dep)
			}
		}
	}
}
