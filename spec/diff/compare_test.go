package diff

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// casesDir holds the golden cases of idemgen diff; their outputs are
// checked in cmd/idemgen.
const casesDir = "../../testdata/diff"

// load loads a spec or fails the test.
func load(t *testing.T, path string) *spec.Document {
	t.Helper()
	doc, err := spec.Load(context.Background(), path, spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestCompareWithItself reports nothing for every loadable spec of the
// golden cases compared with itself.
func TestCompareWithItself(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(casesDir, "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		doc, err := spec.Load(context.Background(), file, spec.LoadOptions{})
		if err != nil || doc.OpenAPI == nil || len(doc.Operations) == 0 {
			continue
		}
		if got := Compare(doc, doc); len(got) != 0 {
			t.Errorf("%s compared with itself: %v", file, got)
		}
	}
}

// TestFingerprintIgnoresPositions gives a finding the same fingerprint when
// the head's lines move.
func TestFingerprintIgnoresPositions(t *testing.T) {
	dir := filepath.Join(casesDir, "fingerprint-field-added")
	base := load(t, filepath.Join(dir, "base.yaml"))
	head := load(t, filepath.Join(dir, "head.yaml"))

	data, err := os.ReadFile(filepath.Join(dir, "head.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "head.yaml")
	if err := os.WriteFile(moved, append([]byte("# two lines\n# further down\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := Compare(base, head), Compare(base, load(t, moved))
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("want one finding each, got %v and %v", a, b)
	}
	if a[0].Head.Line+2 != b[0].Head.Line {
		t.Errorf("head lines %d and %d, want the second two further down", a[0].Head.Line, b[0].Head.Line)
	}
	if a[0].Fingerprint != b[0].Fingerprint || a[0].Fingerprint == "" {
		t.Errorf("fingerprints %q and %q, want equal", a[0].Fingerprint, b[0].Fingerprint)
	}
	if a[0].Rule != "fingerprint-field-added" || a[0].Level != Breaking {
		t.Errorf("got %s at %s, want fingerprint-field-added at breaking", a[0].Rule, a[0].Level)
	}
}
