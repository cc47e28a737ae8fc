package generator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// TestRun checks the library entry point end to end: it writes every file
// of a configuration, then --check finds them current, and a spec the
// planner refuses writes nothing and returns the verdict.
func TestRun(t *testing.T) {
	root := repoRoot(t)
	dir := t.TempDir()
	cfg, err := LoadConfig(filepath.Join(root, "examples", "orders", "idemgen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Specs = []string{filepath.Join(cfg.Dir, "openapi.yaml")}
	cfg.Dir, cfg.Root = "", dir
	cfg.Options.Version = "v0.0.0-test"
	res, err := Run(context.Background(), cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path))); err != nil {
			t.Errorf("Run did not write %s: %v", f.Path, err)
		}
	}
	if res, err := Run(context.Background(), cfg, true); err != nil || res.Diff != "" {
		t.Errorf("Run in check mode after writing: err %v, diff %q; want current", err, res.Diff)
	}

	out := t.TempDir()
	refused := &Config{Specs: []string{filepath.Join(root, "testdata", "golden", "IDEM110-pattern-not-re2", "openapi.yaml")}, Root: out, Options: Options{Package: "x", GoDir: "."}}
	_, err = Run(context.Background(), refused, false)
	var ve *VerdictError
	if !errors.As(err, &ve) || !slices.ContainsFunc(ve.Diagnostics, func(d spec.Diagnostic) bool { return d.Rule == "IDEM110" }) {
		t.Fatalf("Run of a spec the planner refuses: %v, want its IDEM110 (a pattern RE2 does not accept)", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("Run wrote %d entries although the planner refused the spec", len(entries))
	}
}
