package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/spec/diff"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// diffCasesDir holds one directory per idemgen diff case: base.yaml,
// head.yaml, an optional args file of extra flags, any files those flags
// name, and want/ with the output in every format, stderr when there is
// any, and the exit code of the run with the case's flags.
const diffCasesDir = "../../testdata/diff"

// diffWantFiles names the expected output of each format in want/.
var diffWantFiles = map[diff.Format]string{
	diff.FormatText:     "text.txt",
	diff.FormatMarkdown: "markdown.md",
	diff.FormatJSON:     "json.json",
	diff.FormatGitHub:   "github.txt",
}

// TestDiffGolden runs idemgen diff on every case in every format and
// compares with want/; -update rewrites want/. Every JSON output must be
// valid against docs/diff.schema.json.
func TestDiffGolden(t *testing.T) {
	root, err := filepath.Abs(diffCasesDir)
	if err != nil {
		t.Fatal(err)
	}
	schema := compileDiffSchema(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			dir := filepath.Join(root, e.Name())
			t.Chdir(dir)
			got := diffOutputs(t)
			if js := got[diffWantFiles[diff.FormatJSON]]; js != "" {
				validateDiffJSON(t, schema, js)
			}
			if *update {
				writeDiffWant(t, filepath.Join(dir, "want"), got)
				return
			}
			compareDiffWant(t, filepath.Join(dir, "want"), got)
		})
	}
}

// diffOutputs runs the case in the current directory in every format and
// returns want/'s files.
func diffOutputs(t *testing.T) map[string]string {
	t.Helper()
	var flags []string
	if data, err := os.ReadFile("args"); err == nil {
		flags = strings.Fields(string(data))
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range diff.Formats {
		args := append([]string{"diff", "--format", string(f)}, flags...)
		args = append(args, "base.yaml", "head.yaml")
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		got[diffWantFiles[f]] = stdout.String()
		if f != diff.FormatText {
			continue
		}
		got["exit"] = fmt.Sprintf("%d\n", code)
		if stderr.Len() > 0 {
			got["stderr"] = stderr.String()
		}
	}
	for name, out := range got {
		if out == "" {
			delete(got, name)
		}
	}
	return got
}

// compileDiffSchema compiles docs/diff.schema.json.
func compileDiffSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs("../../docs/diff.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return schema
}

// validateDiffJSON validates one JSON report against the schema.
func validateDiffJSON(t *testing.T, schema *jsonschema.Schema, js string) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(js))
	if err != nil {
		t.Fatalf("the JSON output does not parse: %v", err)
	}
	if err := schema.Validate(inst); err != nil {
		t.Errorf("the JSON output does not match docs/diff.schema.json: %v", err)
	}
}

// writeDiffWant rewrites want/ with the files in got and removes the rest.
func writeDiffWant(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range got {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// diffUpdateHint is how to accept new output.
const diffUpdateHint = "If the new output is right, run: go test ./cmd/idemgen -run TestDiffGolden -update"

// compareDiffWant reports every file of want/ that differs from got, is
// missing, or is not produced any more.
func compareDiffWant(t *testing.T, dir string, got map[string]string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v\n%s", err, diffUpdateHint)
			continue
		}
		if d := generator.Diff(path, "got", want, []byte(got[name])); d != "" {
			t.Errorf("%s differs:\n%s\n%s", path, d, diffUpdateHint)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if _, ok := got[e.Name()]; !ok {
			t.Errorf("%s is not produced any more; %s", filepath.Join(dir, e.Name()), diffUpdateHint)
		}
	}
}

// TestDiffGoldenCoversEveryRule requires every change kind of docs/diff.md
// to be reported, at its documented level, by at least one golden case.
func TestDiffGoldenCoversEveryRule(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(diffCasesDir, "*", "want", diffWantFiles[diff.FormatJSON]))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var report diff.JSONReport
		if err := json.Unmarshal(data, &report); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, f := range report.Findings {
			seen[f.Rule] = f.Level
		}
	}
	for _, r := range diff.Rules {
		level, ok := seen[r.ID]
		switch {
		case !ok:
			t.Errorf("no case in %s reports %s", diffCasesDir, r.ID)
		case level != r.Level.String():
			t.Errorf("%s is reported as %s, documented as %s", r.ID, level, r.Level)
		}
	}
}
