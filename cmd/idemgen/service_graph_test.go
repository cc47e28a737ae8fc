package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testOnlyModules name the modules that only idemgen's own tests use, or
// that only those modules pull in (matched as parts of a module path): a
// service's module graph must name none of them.
var testOnlyModules = []string{
	"github.com/pressly/goose", "github.com/golang-migrate/migrate",
	"github.com/docker/", "github.com/moby/", "sqlite", "github.com/lib/pq",
}

// requireLeanGraph fails when the module graph of m names a module of
// testOnlyModules, and logs the modules the build list holds.
func requireLeanGraph(t *testing.T, m *freshModule) {
	t.Helper()
	found := map[string]bool{}
	for line := range strings.Lines(m.run(t, "mod", "graph")) {
		for _, node := range strings.Fields(line) {
			mod, _, _ := strings.Cut(node, "@")
			for _, bad := range testOnlyModules {
				if strings.Contains(mod, bad) {
					found[mod] = true
				}
			}
		}
	}
	for _, mod := range slices.Sorted(maps.Keys(found)) {
		t.Errorf("go mod graph names %s: a requirement of idemgen's go.mod that only its tests need? (move such tests to interop/)", mod)
	}
	all := strings.Fields(m.run(t, "list", "-m", "-f", "{{.Path}}", "all"))
	t.Logf("the build list holds %d modules: %s", len(all), strings.Join(all, " "))
}

// TestModuleGraphIsLean requires idemgen's own module graph to be free of
// its test-only modules: their tests are in the interop module.
func TestModuleGraphIsLean(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	requireLeanGraph(t, &freshModule{dir: filepath.Join("..", "..")})
}

// TestServiceModuleIsLean builds a new module that requires idemgen for
// exactly the packages generated code imports, those of every golden
// case's expected Go (the contract tests' imports in a test file), and
// requires its module graph to be free of idemgen's test-only modules
// (testOnlyModules): a service that imports generated code pulls in the
// runtime and pgx, not goose, golang-migrate or what they need.
func TestServiceModuleIsLean(t *testing.T) {
	imports, testImports := generatedImports(t)
	if len(imports) == 0 {
		t.Fatalf("the golden cases' generated Go imports no idemgen package; run: %s", updateCommand)
	}
	m := newFreshModule(t, "example.com/svc")
	m.write(t, "svc.go", importFile("svc", "// Package svc imports what generated code imports.\n", imports))
	m.write(t, "svc_test.go", importFile("svc", "", testImports))
	m.run(t, "mod", "tidy")
	m.run(t, "vet", "./...")
	requireLeanGraph(t, m)
	built := strings.Fields(m.run(t, "list", "-deps", "-test", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", "./..."))
	t.Logf("its packages and tests compile code of: %s", strings.Join(slices.Compact(slices.Sorted(slices.Values(built))), " "))
}

// generatedImports returns the non-standard import paths of the golden
// cases' generated Go files, sorted, those of non-test and of test files
// apart.
func generatedImports(t *testing.T) (imports, testImports []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*", wantDir, "generate", "go", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		test := strings.HasSuffix(file, "_test.go")
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(path, "/")
			if !strings.Contains(first, ".") || seen[fmt.Sprint(test, path)] {
				continue // the standard library, or seen
			}
			seen[fmt.Sprint(test, path)] = true
			if test {
				testImports = append(testImports, path)
			} else {
				imports = append(imports, path)
			}
		}
	}
	slices.Sort(imports)
	slices.Sort(testImports)
	return imports, testImports
}

// importFile is a Go file of package pkg that imports each of paths for
// its side effects only.
func importFile(pkg, doc string, paths []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%spackage %s\n\nimport (\n", doc, pkg)
	for _, p := range paths {
		fmt.Fprintf(&b, "\t_ %q\n", p)
	}
	b.WriteString(")\n")
	return b.String()
}
