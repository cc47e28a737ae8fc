package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// scratchModule is a temporary Go module that resolves
// github.com/idemgen/idemgen to this repository.
type scratchModule struct{ dir string }

func newScratchModule(t testing.TB) *scratchModule {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := repoRoot(t)
	m := &scratchModule{dir: t.TempDir()}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	m.write(t, "go.mod", []byte("module example.com/generated\n\ngo 1.26\n\nrequire github.com/idemgen/idemgen v0.0.0\n\nreplace github.com/idemgen/idemgen => "+root+"\n"))
	m.write(t, "go.sum", sum)
	return m
}

// write writes a file at a slash-separated path in the module.
func (m *scratchModule) write(t testing.TB, name string, data []byte) {
	t.Helper()
	p := filepath.Join(m.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goCmd runs the go command in the module, failing the test with its
// output when it fails.
func (m *scratchModule) goCmd(t testing.TB, args ...string) {
	t.Helper()
	goCmd(t, m.dir, args...)
}
