package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

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

// truncateLines keeps the first n lines of s.
func truncateLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + "…\n"
}
