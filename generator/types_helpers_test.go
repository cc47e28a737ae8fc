package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/generator/emit"
	"github.com/idemgen/idemgen/spec"
)

// loadTypesDoc reads an OpenAPI file with kin-openapi and lists its
// operations as spec.Load does (path, then method), without contracts:
// type planning needs only the operations and their schemas, and this
// keeps these tests independent of contract decoding.
func loadTypesDoc(t testing.TB, path string) *spec.Document {
	t.Helper()
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = true
	l.IncludeOrigin = true
	t3, err := l.LoadFromFile(path)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	doc := &spec.Document{Path: path, OpenAPI: t3}
	paths := t3.Paths.Keys()
	slices.Sort(paths)
	for _, p := range paths {
		item := t3.Paths.Value(p)
		methods := make([]string, 0, len(item.Operations()))
		for m := range item.Operations() {
			methods = append(methods, m)
		}
		slices.Sort(methods)
		for _, m := range methods {
			op := item.Operations()[m]
			pos := spec.Position{File: path}
			if op.Origin != nil && op.Origin.Key != nil {
				pos.Line, pos.Col = op.Origin.Key.Line, op.Origin.Key.Column
			}
			doc.Operations = append(doc.Operations, &spec.Operation{
				ID: op.OperationID, Method: m, Path: p, Pos: pos, Op: op, PathItem: item,
			})
		}
	}
	return doc
}

// mutating keeps the operations that change state.
func mutating(ops []*spec.Operation) []*spec.Operation {
	var out []*spec.Operation
	for _, op := range ops {
		switch op.Method {
		case "POST", "PUT", "PATCH", "DELETE":
			out = append(out, op)
		}
	}
	return out
}

// renderTypes emits a plan as a Go file of package pkg.
func renderTypes(t testing.TB, pkg string, plan *TypePlan) []byte {
	t.Helper()
	src, err := emit.Types(pkg, plan.Decls, plan.Patterns)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return src
}

// repoRoot finds the directory of go.mod above the package directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package directory")
		}
		dir = parent
	}
}

// vetModule writes files (slash-separated path → content) into a temporary
// module that resolves github.com/idemgen/idemgen to this repository and
// runs go vet on all of it, then go test when some of the files are tests.
func vetModule(t testing.TB, files map[string][]byte) {
	t.Helper()
	dir := writeModule(t, files)
	goCmd(t, dir, "vet", "./...")
	for name := range files {
		if strings.HasSuffix(name, "_test.go") {
			goCmd(t, dir, "test", "./...")
			return
		}
	}
}

// writeModule writes files (slash-separated path → content) into a
// temporary module that resolves github.com/idemgen/idemgen to this
// repository, and returns its directory. It skips t without a go command.
func writeModule(t testing.TB, files map[string][]byte) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := repoRoot(t)
	dir := t.TempDir()
	gomod := "module example.com/generated\n\ngo 1.26\n\nrequire github.com/idemgen/idemgen v0.0.0\n\nreplace github.com/idemgen/idemgen => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(gomod))
	write("go.sum", sum)
	for name, data := range files {
		write(name, data)
	}
	return dir
}

// goCmd runs the go command in dir and fails the test with its output when
// it fails.
func goCmd(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, truncateLines(string(out), 40))
	}
}

// checkNoAny fails when a declared type or a struct field of src uses
// interface{} or any: the typed request path must have none.
func checkNoAny(t testing.TB, name string, src []byte) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ast.Inspect(spec.(*ast.TypeSpec).Type, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.InterfaceType:
					t.Errorf("%s: interface type in %s", name, spec.(*ast.TypeSpec).Name.Name)
				case *ast.Ident:
					if n.Name == "any" {
						t.Errorf("%s: any in %s", name, spec.(*ast.TypeSpec).Name.Name)
					}
				}
				return true
			})
		}
	}
}

// truncateLines keeps the first n lines of s.
func truncateLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + "…\n"
}
