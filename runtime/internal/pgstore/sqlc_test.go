package pgstore_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSQLCGeneratedCodeIsCurrent regenerates the store's code with sqlc
// v1.31.1 into a temporary copy of sqlc.yaml, queries/ and the schema steps
// of runtime/schema (laid out as they are in the repository) and
// requires internal/sqlcdb to hold exactly those files with exactly those
// bytes, besides its hand-written doc.go (a stale extra file fails too,
// which `sqlc diff` would miss). The
// first run builds sqlc (minutes); -short skips it.
func TestSQLCGeneratedCodeIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sqlc")
	}
	root := t.TempDir()
	tmp := filepath.Join(root, "internal", "pgstore")
	if err := os.CopyFS(tmp, os.DirFS(".")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "schema", "steps"), os.DirFS(filepath.Join("..", "..", "schema", "steps"))); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "internal", "sqlcdb")
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1", "generate")
	cmd.Dir = tmp
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlc generate: %v\n%s", err, msg)
	}
	want, got := readDir(t, out), readDir(t, filepath.Join("internal", "sqlcdb"))
	delete(got, "doc.go") // the package comment, the one file sqlc does not write
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("internal/sqlcdb is stale (-generated +committed):\n%s\nregenerate in runtime/internal/pgstore with: go run github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1 generate (and delete stale files)", diff)
	}
}

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}
