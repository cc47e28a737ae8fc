//go:build long

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// overlayCorpus lists the overlays in testdata/overlays that annotate
// vendor specs of the shared corpus, read in place, with what check is
// expected to find: the rules of the contracts' findings, all warnings
// located in the overlay, and the document's own defects, which an overlay
// cannot fix: Square's UpdateVendor leaves its path parameter undeclared
// (OAS002). That operation is not annotated, so the defect is a warning
// located in the spec, check passes and the rest generates.
var overlayCorpus = []struct {
	spec, overlay, pkg string
	// exit is check's exit code.
	exit int
	// sections is the number of annotated operations explain lists.
	sections int
	// warnings are the rules of the expected contract warnings; defects
	// are the expected document defects, as "RULE line".
	warnings []string
	defects  []string
}{
	{"square-api.json", "testdata/overlays/square.overlay.yaml", "square", exitOK, 12,
		[]string{"IDEM008"}, []string{"OAS002 64364"}},
	{"adyen-CheckoutService-v72.json", "testdata/overlays/adyen.overlay.yaml", "adyen", exitOK, 12,
		[]string{"IDEM008", "IDEM019"}, nil},
}

// TestOverlayCorpus annotates the Square and Adyen specs of the shared
// corpus through the overlays in testdata/overlays, whose targets are
// wildcards and filters: check reports only the expected findings,
// explain renders a section per annotated operation and names the overlay
// actions behind it, and generate produces packages that build and vet
// together in one scratch module.
func TestOverlayCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the Square and Adyen specs and builds the generated code")
	}
	t.Chdir(filepath.Join("..", ".."))
	corpus := corpusDir(t)
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	mod := scratchModule(t, root)
	for _, c := range overlayCorpus {
		spec := filepath.Join(corpus, c.spec)
		t.Run(c.pkg, func(t *testing.T) {
			stdout, stderr, code := runIdemgen("check", "--format", "json", "--overlay", c.overlay, spec)
			if code != c.exit {
				t.Fatalf("check: exit %d, want %d\n%s", code, c.exit, stderr)
			}
			checkFindings(t, stdout, c.overlay, c.warnings, c.defects)

			stdout, stderr, code = runIdemgen("explain", "--overlay", c.overlay, spec)
			if code != exitOK {
				t.Fatalf("explain: exit %d\n%s", code, stderr)
			}
			if n := strings.Count(stdout, "\n### "); n != c.sections {
				t.Errorf("explain has %d sections, want %d", n, c.sections)
			}
			if n := strings.Count(stdout, "- **Source.** Set by overlay `"+c.overlay+"`: action 1 (line "); n != c.sections {
				t.Errorf("explain names the overlay actions in %d sections, want all %d", n, c.sections)
			}

			out := filepath.Join(mod, c.pkg)
			if _, stderr, code := runIdemgen("generate", "--spec", spec, "--overlay", c.overlay, "--out", out, "--package", c.pkg); code != exitOK {
				t.Fatalf("generate: exit %d\n%s", code, stderr)
			}
		})
	}
	if t.Failed() {
		return
	}
	for _, verb := range []string{"build", "vet"} {
		cmd := exec.Command("go", verb, "./...")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s of the generated packages: %v\n%s", verb, err, out)
		}
	}
}

// checkFindings requires the findings of a check --format json report to
// be the expected ones: each warning one of the rules in warnings and
// located in the overlay, where the contract came from, and the errors
// exactly errors ("RULE line").
func checkFindings(t *testing.T, report, overlay string, warnings, defects []string) {
	t.Helper()
	var r struct {
		Diagnostics []struct {
			File, Severity, Rule string
			Line                 int
		}
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("check --format json: %v\n%s", err, report)
	}
	var gotDefects []string
	seen := map[string]bool{}
	for _, d := range r.Diagnostics {
		switch {
		case d.Severity == "error":
			t.Errorf("%s:%d: error %s, want none", d.File, d.Line, d.Rule)
		case strings.HasPrefix(d.Rule, "OAS"):
			gotDefects = append(gotDefects, fmt.Sprintf("%s %d", d.Rule, d.Line))
		case d.Rule == "IDEM026" && d.Severity == "warning":
			// A union the vendor's request schema has: it is located at
			// the schema, in the spec, not in the overlay.
		case d.File != overlay:
			t.Errorf("%s:%d: %s %s is not located in the overlay", d.File, d.Line, d.Severity, d.Rule)
		default:
			seen[d.Rule] = true
		}
	}
	if strings.Join(gotDefects, ", ") != strings.Join(defects, ", ") {
		t.Errorf("document defects %v, want %v", gotDefects, defects)
	}
	for _, w := range warnings {
		if !seen[w] {
			t.Errorf("no %s warning; the overlay's contracts should have one", w)
		}
		delete(seen, w)
	}
	for rule := range seen {
		t.Errorf("unexpected %s finding", rule)
	}
}

// TestOverlayCorpusBadValue checks that a bad value in an overlay applied
// to a corpus spec is reported in the overlay file, where it was written.
func TestOverlayCorpusBadValue(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	corpus := corpusDir(t)
	data, err := os.ReadFile("testdata/overlays/square.overlay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "retention: 7d\n", "retention: 7days\n", 1)
	if bad == string(data) {
		t.Fatal("the Square overlay has no retention: 7d to break")
	}
	overlay := filepath.Join(t.TempDir(), "square.overlay.yaml")
	if err := os.WriteFile(overlay, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runIdemgen("check", "--overlay", overlay, filepath.Join(corpus, "square-api.json"))
	want := overlay + `:17:20: x-idempotency-defaults.retention: invalid duration "7days": want a duration such as 90m, 72h, 30d or 1d12h` + "\n"
	if code != exitUnusable || stderr != want {
		t.Errorf("check: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, exitUnusable, want)
	}
}

// scratchModule returns a temporary Go module that resolves
// github.com/idemgen/idemgen to the repository at root.
func scratchModule(t *testing.T, root string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module example.com/generated\n\ngo 1.26\n\nrequire github.com/idemgen/idemgen v0.0.0\n\nreplace github.com/idemgen/idemgen => " + root + "\n"
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// corpusDir finds shared/corpus beside the repository (../shared/corpus)
// or beside a directory further up, as a worktree has it, and skips the
// test when there is none.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no shared/corpus beside the repository or above it")
		}
		dir = parent
		if st, err := os.Stat(filepath.Join(dir, "shared", "corpus")); err == nil && st.IsDir() {
			return filepath.Join(dir, "shared", "corpus")
		}
	}
}
