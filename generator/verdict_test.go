package generator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// requireVerdictAgrees checks the one-verdict property on doc: idemgen
// check finds no error exactly when generate (judgeAndGenerate, what Run
// does) succeeds, and a refusal carries the verdict's diagnostics. It
// returns the generated output, nil when refused.
func requireVerdictAgrees(t testing.TB, name string, doc *spec.Document, opts Options) *Output {
	t.Helper()
	verdict := Verdict(doc)
	out, err := judgeAndGenerate([]*spec.Document{doc}, opts)
	var ve *VerdictError
	switch {
	case len(verdict) == 0 && err != nil:
		t.Errorf("%s: check finds no error, generate fails: %v", name, err)
	case len(verdict) > 0 && err == nil:
		t.Errorf("%s: check finds %d errors (first %s: %s), generate succeeds", name, len(verdict), verdict[0].Rule, verdict[0].Message)
	case len(verdict) > 0 && (!errors.As(err, &ve) || len(ve.Diagnostics) != len(verdict)):
		t.Errorf("%s: generate fails with %v, want the verdict's %d diagnostics", name, err, len(verdict))
	}
	for _, d := range verdict {
		if d.Rule == "" || d.Pos.File == "" || d.Severity != spec.SeverityError {
			t.Errorf("%s: verdict diagnostic without rule, position or error severity: %+v", name, d)
		}
	}
	return out
}

// unannotateUnsupported removes the contract of every annotated operation
// whose request body is in no generated media type, and returns how many
// it removed.
func unannotateUnsupported(doc *spec.Document) int {
	n := 0
	for _, op := range doc.Operations {
		if op.Contract == nil || op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Value == nil || len(op.Op.RequestBody.Value.Content) == 0 {
			continue
		}
		if _, _, m := pickMedia(op.Op.RequestBody.Value.Content, MediaJSON, MediaForm); m == nil {
			op.Contract = nil
			n++
		}
	}
	return n
}

// mountTest is the hand-written test put beside every package the
// verdict tests generate: it mounts the generated routes on a ServeMux
// (Register) and on chi (Routes) and fails on any error or panic. The pool
// is never dialled: building handlers does not touch the database.
const mountTest = `package %s

import (
	"context"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
)

func newContractFixture(t *testing.T) *contractFixture {
	t.Skip("no business implementation")
	return nil
}

func TestMounts(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://idemgen@127.0.0.1:1/mount")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	scope := func(*http.Request) (string, error) { return "t", nil }
	if err := Register(http.NewServeMux(), exec, struct{ Handlers }{}, scope); err != nil {
		t.Fatalf("Register: %%v", err)
	}
	routes, err := Routes(exec, struct{ Handlers }{}, scope)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	for _, rt := range routes {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("chi: %%s %%s: %%v", rt.Method, rt.Path, v)
				}
			}()
			r.Method(rt.Method, rt.Path, rt.Handler)
		}()
	}
}
`

// verdictModule is a scratch module with chi, for packages that are
// generated, vetted and mounted.
func verdictModule(t testing.TB) *scratchModule {
	t.Helper()
	m := newScratchModule(t)
	gomod, err := os.ReadFile(filepath.Join(m.dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m.write(t, "go.mod", append(gomod, "\nrequire github.com/go-chi/chi/v5 v5.5.0\n"...))
	return m
}

// addPackage writes a generated package and its mount test into m.
func addPackage(t testing.TB, m *scratchModule, pkg string, out *Output, extra string) {
	t.Helper()
	for _, f := range out.Files {
		if strings.HasSuffix(f.Path, ".go") {
			m.write(t, f.Path, f.Content)
		}
	}
	m.write(t, pkg+"/mount_test.go", fmt.Appendf(nil, mountTest, pkg))
	if extra != "" {
		m.write(t, pkg+"/paths_test.go", []byte(extra))
	}
}

// verdictSpecs lists the specs of the repository's golden cases.
func verdictSpecs(t testing.TB) []string {
	t.Helper()
	root := repoRoot(t)
	var files []string
	for _, pattern := range []string{"testdata/golden/*/openapi.yaml", "testdata/golden/*/openapi.yml", "testdata/golden/*/openapi.json"} {
		found, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, found...)
	}
	slices.Sort(files)
	return files
}

// TestOneVerdict holds the one-verdict property over every spec in
// testdata and a property test over random path-parameter names: check
// finds no error exactly when generate succeeds, and then the generated
// package compiles, vets and mounts on a ServeMux and on chi.
func TestOneVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("builds, vets and tests generated packages")
	}
	m := verdictModule(t)
	var pkgs []string
	for i, file := range verdictSpecs(t) {
		doc, err := spec.Load(context.Background(), file, spec.LoadOptions{})
		if err != nil {
			continue // unusable input: both commands exit 2 before judging
		}
		pkg := fmt.Sprintf("v%02d", i)
		if out := requireVerdictAgrees(t, file, doc, Options{Package: pkg, GoDir: pkg, Tests: true, Version: "v0.0.0-test"}); out != nil {
			addPackage(t, m, pkg, out, "")
			pkgs = append(pkgs, "./"+pkg)
		}
	}
	doc, paths := randomPathSpec(t, rand.New(rand.NewPCG(9, 9)), 40)
	out := requireVerdictAgrees(t, "random path parameters", doc, Options{Package: "paths", GoDir: "paths", Tests: true, Version: "v0.0.0-test"})
	if out == nil {
		t.Fatal("the random path-parameter spec was refused")
	}
	addPackage(t, m, "paths", out, paths)
	pkgs = append(pkgs, "./paths")
	if len(pkgs) < 10 {
		t.Fatalf("only %d packages generated; the testdata specs should give more", len(pkgs))
	}
	m.goCmd(t, append([]string{"vet"}, pkgs...)...)
	m.goCmd(t, append([]string{"test", "-count=1"}, pkgs...)...)
}
