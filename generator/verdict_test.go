package generator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// requireJudged judges doc, and emits its plan when the judgement has no
// error, checking what the one judgement promises: every error has a rule
// and a position, there is a plan exactly when there is no error, and a
// plan always emits. It returns the output, nil when the spec is refused.
func requireJudged(t testing.TB, name string, doc *spec.Document, opts Options) *Output {
	t.Helper()
	j := Judge(doc, spec.CheckOptions{})
	errs := j.Errors()
	for _, d := range errs {
		if d.Rule == "" || d.Pos.File == "" || d.Pos.Line == 0 {
			t.Errorf("%s: error without rule or position: %+v", name, d)
		}
	}
	if (j.Plan == nil) != (len(errs) > 0) {
		t.Fatalf("%s: %d errors and plan %v: a judgement has a plan exactly when it has no error", name, len(errs), j.Plan)
	}
	if j.Plan == nil {
		return nil
	}
	out, err := Generate(j.Plan, opts)
	if err != nil {
		t.Errorf("%s: the judgement has no error, but its plan does not emit: %v", name, err)
	}
	return out
}

// unannotateUnsupported removes the contract of every annotated operation
// whose request body is in no generated media type (JSON, a form,
// multipart/form-data), and returns how many it removed.
func unannotateUnsupported(doc *spec.Document) int {
	n := 0
	for _, op := range doc.Operations {
		if op.Contract == nil || op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Value == nil || len(op.Op.RequestBody.Value.Content) == 0 {
			continue
		}
		if _, _, m := spec.PickMedia(op.Op.RequestBody.Value.Content, MediaJSON, MediaForm, MediaMultipart); m == nil {
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
