//go:build long

package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/spec"
)

// bookingsScenarios are the scenarios RunContract runs for each operation
// of the bookings spec, with the result each must have. The "new key"
// scenario skips: createBooking declares a natural key (room, first
// night) and checkInBooking names its booking in the path, so the same
// content under a new key is the same entity.
var bookingsScenarios = map[string]string{
	"concurrent_duplicates_one_effect":     "PASS",
	"lost_response_replays":                "PASS",
	"changed_field_422":                    "PASS",
	"new_key_new_operation":                "SKIP",
	"other_scope_independent":              "PASS",
	"past_wait_timeout_409":                "PASS",
	"retention_expired_then_purged":        "PASS",
	"rolled_back_attempt_leaves_no_effect": "PASS",
	"replay_after_resource_change":         "SKIP", // the bookings fixture has no Touch: its contracts replay stored answers
}

// bookingsOperations are the generated names of the spec's idempotent
// operations.
var bookingsOperations = []string{"CreateBooking", "CheckInBooking"}

// testResult matches the result line go test -v prints for a test or
// subtest.
var testResult = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)

// TestBookingsContract generates testdata/golden/bookings/openapi.yaml, a room
// booking API keyed by a body field, with its contract tests, puts the
// hand-written hotel of testdata/bookings next to the generated files in
// a temporary module, and requires go vet to be clean and go test -race to
// pass every contract scenario of both operations against PostgreSQL
// (DATABASE_URL, or a throwaway cluster), and both typed-fingerprint
// property tests.
func TestBookingsContract(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generated bookings service with -race against PostgreSQL")
	}
	root := repoRoot(t)
	doc, err := spec.Load(t.Context(), filepath.Join(root, "testdata", "golden", "bookings", "openapi.yaml"), spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j := Judge(doc, spec.CheckOptions{})
	if len(j.Diagnostics) > 0 {
		t.Fatalf("the bookings spec has findings, want none: %v", j.Diagnostics)
	}
	out, err := Generate(j.Plan, Options{Package: "bookings", Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range out.Files {
		files[f.Path] = f.Content
	}
	for name, src := range handWritten(t, filepath.Join(root, "testdata", "bookings")) {
		if _, dup := files[name]; dup {
			t.Fatalf("testdata/bookings/%s has the name of a generated file", name)
		}
		files[name] = src
	}
	dir := writeModule(t, files)
	goCmd(t, dir, "vet", "./...")
	output := goTestVerbose(t, dir)
	t.Logf("go test -race -v in the generated module:\n%s", output)

	want := map[string]string{}
	for _, op := range bookingsOperations {
		want["TestContract"+op] = "PASS"
		want["TestFingerprint"+op] = "PASS"
		for scenario, result := range bookingsScenarios {
			want["TestContract"+op+"/"+scenario] = result
		}
	}
	// The hand-written tests of the service also run; go test failed
	// above if one of them failed, so only the generated ones are compared.
	got := map[string]string{}
	for _, m := range testResult.FindAllStringSubmatch(output, -1) {
		if strings.HasPrefix(m[2], "TestContract") || strings.HasPrefix(m[2], "TestFingerprint") {
			got[m[2]] = m[1]
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results of the generated tests (-want +got):\n%s\noutput:\n%s", diff, output)
	}
	if !strings.Contains(output, "the contract declares a natural key") {
		t.Errorf("the new-key scenario did not skip for the natural key; output:\n%s", output)
	}
}

// handWritten reads the files of the hand-written service in dir, keyed by
// name.
func handWritten(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = src
	}
	if len(files) == 0 {
		t.Fatalf("no hand-written service in %s", dir)
	}
	return files
}

// goTestVerbose runs go test -race -count=1 -v on the module in dir, as
// goCmd runs the go command, and returns its output; a failure shows the
// whole output, where the failing scenario's log is.
func goTestVerbose(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("go", "test", "-race", "-count=1", "-v", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -race -v in %s: %v\n%s", dir, err, out)
	}
	return string(out)
}
