package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output and remove stale cases")

// goldenDir holds one directory of expected output per case, relative to
// the repository root.
const goldenDir = "testdata/golden"

// Leading comment lines of a spec can configure its case:
//
//	# check-args: --require-mutations
//	# overlay: testdata/specs/overlays/vendor.overlay.yaml
//
// check-args are extra flags for check; each overlay is applied, in order,
// by both check and explain.
const (
	checkArgsPrefix = "# check-args:"
	overlayPrefix   = "# overlay:"
)

// goldenCase is one spec the golden test runs idemgen on.
type goldenCase struct {
	name string
	spec string
	// checkArgs are extra flags for check only; loadArgs are flags for
	// both check and explain.
	checkArgs []string
	loadArgs  []string
}

// goldenCases lists every spec in testdata/specs and the orders example,
// by case name.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	var specs []string
	for _, pattern := range []string{"testdata/specs/*.yaml", "testdata/specs/*.yml", "testdata/specs/*.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, m...)
	}
	slices.Sort(specs)
	cases := []goldenCase{{name: "example-orders", spec: "examples/orders/openapi.yaml"}}
	for _, s := range specs {
		cases = append(cases, goldenCase{name: strings.TrimSuffix(filepath.Base(s), filepath.Ext(s)), spec: s})
	}
	for i := range cases {
		data, err := os.ReadFile(cases[i].spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "#") {
				break
			}
			if rest, ok := strings.CutPrefix(line, checkArgsPrefix); ok {
				cases[i].checkArgs = append(cases[i].checkArgs, strings.Fields(rest)...)
			}
			if rest, ok := strings.CutPrefix(line, overlayPrefix); ok {
				cases[i].loadArgs = append(cases[i].loadArgs, "--overlay", strings.TrimSpace(rest))
			}
		}
	}
	return cases
}

// runIdemgen runs idemgen in-process and returns what it printed and its
// exit code.
func runIdemgen(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// transcript records one run: stdout, then stderr under a marker when
// there is any, then the exit code.
func transcript(stdout, stderr string, code int) string {
	var b strings.Builder
	b.WriteString(stdout)
	if stderr != "" {
		b.WriteString("-- stderr --\n")
		b.WriteString(stderr)
	}
	fmt.Fprintf(&b, "exit: %d\n", code)
	return b.String()
}

// goldenOutputs runs check and, when the spec is usable, explain, and
// returns the files that make up the case's expected output.
func goldenOutputs(t *testing.T, c goldenCase) map[string]string {
	args := slices.Concat([]string{"check", "--format", "text"}, c.checkArgs, c.loadArgs, []string{c.spec})
	stdout, stderr, code := runIdemgen(args...)
	files := map[string]string{"check.txt": transcript(stdout, stderr, code)}
	if code == exitUnusable {
		return files
	}
	stdout, stderr, code = runIdemgen(slices.Concat([]string{"explain"}, c.loadArgs, []string{c.spec})...)
	files["explain.md"] = stdout
	if stderr != "" || code != exitOK {
		files["explain.err.txt"] = transcript("", stderr, code)
	}
	generated(t, c, files)
	return files
}

// goldenPackage is the Go package name of every case's generated code.
const goldenPackage = "golden"

// generated runs generate for the case into a temporary directory and
// adds what it wrote under generate/, with its transcript in
// generate.txt.
func generated(t *testing.T, c goldenCase, files map[string]string) {
	t.Helper()
	tmp := t.TempDir()
	args := slices.Concat([]string{"generate"}, c.loadArgs, []string{"--spec", c.spec,
		"--out", filepath.Join(tmp, "go"), "--package", goldenPackage, "--tests",
		"--migrations", "plain", "--migrations-dir", filepath.Join(tmp, "migrations"),
		"--sqlc", filepath.Join(tmp, "sqlc")})
	stdout, stderr, code := runIdemgen(args...)
	files["generate.txt"] = transcript(stdout, strings.ReplaceAll(stderr, tmp, "$TMP"), code)
	err := filepath.WalkDir(tmp, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(tmp, p)
		if err != nil {
			return err
		}
		content, err := os.ReadFile(p)
		files[filepath.ToSlash(filepath.Join("generate", rel))] = string(content)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGolden runs idemgen check and explain on every spec in
// testdata/specs and on examples/orders, and compares stdout, stderr and
// the exit code with testdata/golden/<case>/. Run it from the repository
// root's point of view, so paths in the output are relative and the same
// on every machine.
func TestGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	cases := goldenCases(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := goldenOutputs(t, c)
			dir := filepath.Join(goldenDir, c.name)
			if *update {
				writeGolden(t, dir, got)
				return
			}
			compareGolden(t, dir, got)
		})
	}
	if *update {
		removeStale(t, cases)
	}
}

// writeGolden replaces the case directory with the files.
func writeGolden(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// compareGolden reports every file that differs from the case directory,
// and every file there that the run no longer produces.
func compareGolden(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v\nrun: go test ./cmd/idemgen -run TestGolden -update", err)
			continue
		}
		if diff := generator.Diff(path, "got", want, []byte(got[name])); diff != "" {
			t.Errorf("%s differs:\n%s\nIf the new output is right, run: go test ./cmd/idemgen -run TestGolden -update", path, diff)
		}
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if _, ok := got[filepath.ToSlash(rel)]; !ok {
			t.Errorf("%s is not produced any more; run: go test ./cmd/idemgen -run TestGolden -update", p)
		}
		return nil
	})
}

// removeStale deletes golden directories of cases that no longer exist.
func removeStale(t *testing.T, cases []goldenCase) {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || slices.ContainsFunc(cases, func(c goldenCase) bool { return c.name == e.Name() }) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(goldenDir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}
