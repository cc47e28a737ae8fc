package main

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/generator/emit"
	"github.com/idemgen/idemgen/spec"
)

var update = flag.Bool("update", false, "rewrite the want directories of testdata/golden and remove stale files and cases")

// updateCommand rewrites the golden files.
const updateCommand = "go test ./cmd/idemgen -run TestGolden -update"

// TestGolden runs the commands of every case of testdata/golden (see
// caseOptions) and compares what they print, their exit codes and the
// files they generate with the case's want directory; with -update it
// rewrites want instead, removing what the run no longer produces. It
// runs from the repository root, so paths in the output are relative and
// the same on every machine.
func TestGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			got := caseOutputs(t, c)
			if *update {
				writeWant(t, c.want(), got)
				return
			}
			compareWant(t, c.want(), got)
		})
	}
}

// caseOutputs runs the case's commands and returns the files of its
// expected output, by slash-separated path under want.
func caseOutputs(t *testing.T, c goldenCase) map[string]string {
	t.Helper()
	files := map[string]string{}
	if c.opts.Check != nil {
		args := slices.Concat([]string{"check", "--format", "text"}, c.opts.Check.Args, c.overlayArgs(), []string{c.spec})
		stdout, stderr, code := runIdemgen(args...)
		files["check.txt"] = transcript(stdout, stderr, code)
	}
	if c.opts.Explain != nil {
		stdout, stderr, code := runIdemgen(slices.Concat([]string{"explain"}, c.overlayArgs(), []string{c.spec})...)
		files["explain.md"] = stdout
		files["explain.txt"] = transcript("", stderr, code)
	}
	if c.opts.Generate != nil {
		transcript, _, generated := generateCase(t, c, c.spec)
		files["generate.txt"] = transcript
		for name, content := range generated {
			files["generate/"+name] = content
		}
	}
	if c.opts.Types != nil {
		maps.Copy(files, typesCase(t, c, c.spec))
	}
	return files
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

// goldenGeneratorVersion is the generator version the golden cases record,
// so that their output does not change with the build that runs them.
const goldenGeneratorVersion = "v0.0.0-golden"

// generateCase runs generate for the case on specPath into a temporary
// directory and returns its transcript, with the directory written as
// $TMP, its exit code, and every file it wrote by slash-separated path:
// go/ for the Go package, migrations/ and sqlc/ when the case asks for
// them.
func generateCase(t *testing.T, c goldenCase, specPath string) (string, int, map[string]string) {
	t.Helper()
	g := c.opts.Generate
	tmp := t.TempDir()
	args := slices.Concat([]string{"generate"}, c.overlayArgs(), []string{"--spec", specPath,
		"--out", filepath.Join(tmp, "go"), "--package", c.generatePackage(),
		"--generator-version", goldenGeneratorVersion})
	if g.Tests {
		args = append(args, "--tests")
	}
	if g.Schema != "" {
		args = append(args, "--schema", g.Schema)
	}
	if g.Migrations != "" {
		args = append(args, "--migrations", g.Migrations, "--migrations-dir", filepath.Join(tmp, "migrations"))
	}
	if g.SQLC {
		args = append(args, "--sqlc", filepath.Join(tmp, "sqlc"))
	}
	stdout, stderr, code := runIdemgen(args...)
	return transcript(stdout, strings.ReplaceAll(stderr, tmp, "$TMP"), code), code, readTree(t, tmp)
}

// typesCase plans the Go types of every operation of the spec at specPath
// with the generator's type planner alone and returns the files of the
// case's expected output: types.go and decoders.go, or types.txt with the
// planner's error.
func typesCase(t *testing.T, c goldenCase, specPath string) map[string]string {
	t.Helper()
	doc, err := spec.Load(t.Context(), specPath, spec.LoadOptions{})
	if err != nil {
		return map[string]string{"types.txt": err.Error() + "\n"}
	}
	plan, err := generator.PlanTypes(doc, doc.Operations, generator.TypeOptions{})
	if err != nil {
		return map[string]string{"types.txt": err.Error() + "\n"}
	}
	types, decoders, err := emit.Types(c.generatePackage(), plan.Decls, plan.Patterns)
	if err != nil {
		t.Fatalf("render the types of %s: %v", specPath, err)
	}
	return map[string]string{"types.go": string(types), "decoders.go": string(decoders)}
}

// readTree returns the files below dir by slash-separated relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		content, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(content)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// writeWant replaces the want directory with the files.
func writeWant(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
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

// compareWant reports every file that differs from the want directory,
// with a unified diff, every file the run produces that is not there,
// and every file there that the run no longer produces.
func compareWant(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	want := readTree(t, dir)
	for _, name := range slices.Sorted(maps.Keys(got)) {
		path := filepath.Join(dir, filepath.FromSlash(name))
		w, ok := want[name]
		if !ok {
			t.Errorf("%s is missing: the run produces it\nIf the new output is right, run: %s", path, updateCommand)
			continue
		}
		if diff := generator.Diff(path, "got", []byte(w), []byte(got[name])); diff != "" {
			t.Errorf("%s differs:\n%s\nIf the new output is right, run: %s", path, diff, updateCommand)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if _, ok := got[name]; !ok {
			t.Errorf("%s is not produced any more\nrun: %s", filepath.Join(dir, filepath.FromSlash(name)), updateCommand)
		}
	}
}
