//go:build long

package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator/emit"
	"github.com/idemgen/idemgen/spec"
)

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

// renderTypes emits a plan as the two Go files of package pkg, the types
// and their decoders.
func renderTypes(t testing.TB, pkg string, plan *TypePlan) (types, decoders []byte) {
	t.Helper()
	types, decoders, err := emit.Types(pkg, plan.Decls, plan.Patterns)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return types, decoders
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
