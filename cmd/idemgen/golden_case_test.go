package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// goldenDir holds the golden cases, one directory each, relative to the
// repository root:
//
//	testdata/golden/<case>/
//	    case.yaml        the commands to run and their options
//	    openapi.yaml     the spec (or openapi.yml, openapi.json: exactly one)
//	    ...              files the spec or case.yaml refers to (overlays,
//	                     external $refs) and *_test.go files for its package
//	    want/            the expected output, written by -update:
//	        check.txt        check's stdout, stderr and exit code
//	        explain.md       explain's stdout, and explain.txt its stderr and exit code
//	        generate.txt     generate's stdout, stderr and exit code
//	        generate/        the files generate wrote: go/, migrations/, sqlc/
//	        types.go         the planned types, decoders.go their decoders, or
//	                         types.txt with the planner's error
const goldenDir = "testdata/golden"

// caseFile is the name of a case's options file.
const caseFile = "case.yaml"

// wantDir is the directory of a case's expected output.
const wantDir = "want"

// specNames are the names a case's spec may have.
var specNames = []string{"openapi.yaml", "openapi.yml", "openapi.json"}

// goldenPackage is the Go package name of the generated code when a case
// does not name one.
const goldenPackage = "golden"

// caseOptions is a case.yaml. Each command runs when its key is present,
// in the order check, explain, generate, types, whatever the outcome of
// the one before:
//
//	overlays: [vendor.overlay.yaml]      # applied, in order, by check, explain and generate
//	check: {args: [--require-mutations]} # idemgen check --format text ARGS (ARGS may set --format)
//	explain: {}                          # idemgen explain
//	generate:                            # idemgen generate into a temporary directory
//	  package: golden                    # the default
//	  tests: true                        # --tests
//	  schema: idempotency                # --schema
//	  migrations: goose                  # --migrations goose|golang-migrate|plain
//	  sqlc: true                         # --sqlc
//	types: {}                            # the generator's type planner alone, on every operation
//
// Paths are relative to the case directory. Unknown keys are errors.
// Migrations and sqlc are off unless a case asks for them: the SQL does
// not depend on the spec, so a few dedicated cases cover each format.
type caseOptions struct {
	Overlays []string         `yaml:"overlays"`
	Check    *checkOptions    `yaml:"check"`
	Explain  *struct{}        `yaml:"explain"`
	Generate *generateOptions `yaml:"generate"`
	Types    *typesOptions    `yaml:"types"`
}

// checkOptions are the options of a case's check command.
type checkOptions struct {
	// Args are flags after check --format text.
	Args []string `yaml:"args"`
}

// generateOptions are the options of a case's generate command.
type generateOptions struct {
	Package    string `yaml:"package"`
	Tests      bool   `yaml:"tests"`
	Schema     string `yaml:"schema"`
	Migrations string `yaml:"migrations"`
	SQLC       bool   `yaml:"sqlc"`
}

// typesOptions are the options of a case's types command.
type typesOptions struct {
	Package string `yaml:"package"`
}

// goldenCase is one directory of testdata/golden.
type goldenCase struct {
	name string
	// dir is the case directory and spec its spec, relative to the
	// repository root.
	dir, spec string
	opts      caseOptions
}

// want is the case's want directory.
func (c goldenCase) want() string { return filepath.Join(c.dir, wantDir) }

// overlayArgs are the --overlay flags of the case.
func (c goldenCase) overlayArgs() []string {
	var args []string
	for _, o := range c.opts.Overlays {
		args = append(args, "--overlay", filepath.Join(c.dir, filepath.FromSlash(o)))
	}
	return args
}

// generatePackage is the package name the case generates into.
func (c goldenCase) generatePackage() string {
	switch {
	case c.opts.Generate != nil && c.opts.Generate.Package != "":
		return c.opts.Generate.Package
	case c.opts.Types != nil && c.opts.Types.Package != "":
		return c.opts.Types.Package
	}
	return goldenPackage
}

// goldenCases reads every case of testdata/golden, in name order. Run it
// from the repository root. Anything there that is not a case fails the
// test, and so does a spec left in the old place, testdata/specs; with
// -update, a directory that holds neither a case.yaml nor a spec is the
// output of a removed case and is deleted.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	var old []string
	for _, pattern := range []string{"testdata/specs/*.yaml", "testdata/specs/*.yml", "testdata/specs/*.json"} {
		m, _ := filepath.Glob(pattern)
		old = append(old, m...)
	}
	if len(old) > 0 {
		t.Fatalf("%s: spec cases are directories of %s now: move each spec to %s/<case>/openapi.yaml beside a %s (see cmd/idemgen/golden_case_test.go)",
			strings.Join(old, ", "), goldenDir, goldenDir, caseFile)
	}
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		dir := filepath.Join(goldenDir, e.Name())
		if !e.IsDir() {
			t.Errorf("%s: not a case directory; %s holds only cases", dir, goldenDir)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, caseFile)); errors.Is(err, os.ErrNotExist) && findSpec(dir) == "" {
			if !*update {
				t.Errorf("%s holds no %s and no spec: the output of a removed case\nrun: %s", dir, caseFile, updateCommand)
				continue
			}
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			t.Logf("removed %s: no %s and no spec, the output of a removed case", dir, caseFile)
			continue
		}
		c, err := readCase(dir)
		if err != nil {
			t.Error(err)
			continue
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		t.Fatalf("no cases in %s", goldenDir)
	}
	return cases
}

// readCase reads the case in dir.
func readCase(dir string) (goldenCase, error) {
	c := goldenCase{name: filepath.Base(dir), dir: dir}
	path := filepath.Join(dir, caseFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("%s: not a case: %w", dir, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c.opts); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	o := c.opts
	if o.Check == nil && o.Explain == nil && o.Generate == nil && o.Types == nil {
		return c, fmt.Errorf("%s: no command: want at least one of check, explain, generate, types", path)
	}
	if o.Generate != nil && o.Types != nil {
		return c, fmt.Errorf("%s: generate and types: a case's Go package comes from one of them", path)
	}
	if g := o.Generate; g != nil && g.Migrations != "" && !slices.Contains([]string{"goose", "golang-migrate", "plain"}, g.Migrations) {
		return c, fmt.Errorf("%s: generate.migrations: %q is not goose, golang-migrate or plain", path, g.Migrations)
	}
	for _, ov := range o.Overlays {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ov))); err != nil {
			return c, fmt.Errorf("%s: overlay: %w", path, err)
		}
	}
	if c.spec = findSpec(dir); c.spec == "" {
		return c, fmt.Errorf("%s: no spec: want exactly one of %s", dir, strings.Join(specNames, ", "))
	}
	if _, err := os.Stat(c.want()); err != nil && !*update {
		return c, fmt.Errorf("%s: no expected output: %w\nrun: %s", dir, err, updateCommand)
	}
	return c, nil
}

// findSpec returns the path of the one spec in dir, or "" when there is
// none or more than one.
func findSpec(dir string) string {
	var found []string
	for _, name := range specNames {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			found = append(found, filepath.Join(dir, name))
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// TestReadCaseRefuses checks that readCase accepts nothing a case.yaml
// does not state.
func TestReadCaseRefuses(t *testing.T) {
	tests := map[string]struct {
		files map[string]string
		want  string
	}{
		"unknown key":     {map[string]string{"case.yaml": "check: {}\ncheck-args: [-x]\n", "openapi.yaml": "{}"}, "field check-args not found"},
		"unknown option":  {map[string]string{"case.yaml": "generate: {test: true}\n", "openapi.yaml": "{}"}, "field test not found"},
		"no command":      {map[string]string{"case.yaml": "overlays: []\n", "openapi.yaml": "{}"}, "no command"},
		"empty":           {map[string]string{"case.yaml": "", "openapi.yaml": "{}"}, "no command"},
		"two packages":    {map[string]string{"case.yaml": "generate: {}\ntypes: {}\n", "openapi.yaml": "{}"}, "generate and types"},
		"bad migrations":  {map[string]string{"case.yaml": "generate: {migrations: flyway}\n", "openapi.yaml": "{}"}, `"flyway" is not goose`},
		"missing overlay": {map[string]string{"case.yaml": "overlays: [o.yaml]\ncheck: {}\n", "openapi.yaml": "{}"}, "overlay:"},
		"no spec":         {map[string]string{"case.yaml": "check: {}\n"}, "no spec"},
		"two specs":       {map[string]string{"case.yaml": "check: {}\n", "openapi.yaml": "{}", "openapi.json": "{}"}, "no spec"},
		"no case.yaml":    {map[string]string{"openapi.yaml": "{}"}, "not a case"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for file, content := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Mkdir(filepath.Join(dir, wantDir), 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := readCase(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("readCase: %v, want an error with %q", err, tt.want)
			}
		})
	}
}
