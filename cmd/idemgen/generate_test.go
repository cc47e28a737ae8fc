package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator"
)

// copyExample copies the orders example's spec and configuration into a
// temporary directory and returns it.
func copyExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"openapi.yaml", "idemgen.yaml"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "orders", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGenerateCheck is the CI drift check: --check passes on fresh output,
// and after the spec changes it writes nothing, prints a diff and exits 1.
func TestGenerateCheck(t *testing.T) {
	dir := copyExample(t)
	config := filepath.Join(dir, "idemgen.yaml")
	if _, stderr, code := runIdemgen("generate", "--config", config); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	if stdout, stderr, code := runIdemgen("generate", "--config", config, "--check"); code != exitOK || stdout != "" {
		t.Fatalf("generate --check on fresh output: exit %d\n%s%s", code, stdout, stderr)
	}
	spec := filepath.Join(dir, "openapi.yaml")
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "wait-timeout: 5s", "wait-timeout: 7s", 1)
	if changed == string(data) {
		t.Fatal("the example spec has no wait-timeout: 5s to change")
	}
	if err := os.WriteFile(spec, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "shop", "openapi_operations.go"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runIdemgen("generate", "--config", config, "--check")
	if code != exitFindings {
		t.Fatalf("generate --check after a spec change: exit %d, want %d\n%s", code, exitFindings, stderr)
	}
	for _, want := range []string{"--- a/shop/openapi_operations.go", "-\tWaitTimeout:   5 * time.Second,", "+\tWaitTimeout:   7 * time.Second,"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the drift diff does not contain %q:\n%s", want, stdout)
		}
	}
	after, err := os.ReadFile(filepath.Join(dir, "shop", "openapi_operations.go"))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Error("generate --check changed a file")
	}
}

// TestGenerateRefusesContractErrors checks that a contract with an
// error-level finding, the spec's own or the planner's, generates nothing
// (exit 2), and that check reports the same rule (exit 1).
func TestGenerateRefusesContractErrors(t *testing.T) {
	for _, tc := range []struct{ file, rule string }{
		{"IDEM001-fingerprint-pointer-missing", "IDEM001"},
		{"IDEM023-request-body-not-generated", "IDEM023"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			out := t.TempDir()
			spec := filepath.Join("..", "..", "testdata", "golden", tc.file, "openapi.yaml")
			_, stderr, code := runIdemgen("generate", "--spec", spec, "--out", out, "--package", "x")
			if code != exitUnusable || !strings.Contains(stderr, tc.rule) {
				t.Fatalf("generate of a contract with an error: exit %d, want %d with %s\n%s", code, exitUnusable, tc.rule, stderr)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("generate wrote %d entries although the contract has an error", len(entries))
			}
			stdout, _, code := runIdemgen("check", spec)
			if code != exitFindings || !strings.Contains(stdout, tc.rule) {
				t.Errorf("check: exit %d, want %d with %s\n%s", code, exitFindings, tc.rule, stdout)
			}
		})
	}
}

// TestGenerateConfigErrors checks that a bad idemgen.yaml is unusable input
// with a positioned reason.
func TestGenerateConfigErrors(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "idemgen.yaml")
	if err := os.WriteFile(config, []byte("specs: [openapi.yaml]\npackage: shop\npackge: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runIdemgen("generate", "--config", config)
	want := config + `:3:1: packge: unknown key (did you mean "package"?)`
	if code != exitUnusable || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, exitUnusable, want)
	}
}

// TestGenerateRecordsVersion checks that the package records the build's
// generator version, or the one --generator-version fixes for tests.
func TestGenerateRecordsVersion(t *testing.T) {
	spec := filepath.Join("..", "..", "testdata", "golden", "good-minimal", "openapi.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, generator.Version()},
		{[]string{"--generator-version", "v9.9.9-test"}, "v9.9.9-test"},
	} {
		out := t.TempDir()
		args := append([]string{"generate", "--spec", spec, "--out", out, "--package", "x"}, tc.args...)
		if _, stderr, code := runIdemgen(args...); code != exitOK {
			t.Fatalf("generate %v: exit %d\n%s", tc.args, code, stderr)
		}
		src, err := os.ReadFile(filepath.Join(out, "idemgen.go"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "const GeneratorVersion = " + strconv.Quote(tc.want); !strings.Contains(string(src), want) {
			t.Errorf("generate %v: idemgen.go lacks %s:\n%s", tc.args, want, src)
		}
	}
}

// TestGenerateRefusesLinkedOutput is the reproduction of out: through a
// symbolic link in the repository, which wrote the generated files
// outside it, and of a schema name with a line break: both are unusable
// input, positioned in idemgen.yaml, and nothing is written.
func TestGenerateRefusesLinkedOutput(t *testing.T) {
	dir := copyExample(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "shop")); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "idemgen.yaml")
	_, stderr, code := runIdemgen("generate", "--config", config)
	if want := config + `:4:6: out: "shop" leads out of the configuration's directory through a symbolic link`; code != exitUnusable || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUnusable, want)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("generate wrote %d files outside the repository", len(entries))
	}

	if err := os.Remove(filepath.Join(dir, "shop")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), "schema: idempotency", `schema: "idem\npotency"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runIdemgen("generate", "--config", config)
	if want := config + `:5:9: schema: "idem\npotency" holds the control character U+000A`; code != exitUnusable || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUnusable, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "migrations")); err == nil {
		t.Error("generate wrote migrations for a refused schema name")
	}
}
