package sqlccheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sqlc is the command that generates the runtime's query code, pinned.
var sqlc = []string{"go", "run", "github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1", "generate"}

// The layout every sqlc package of the runtime shares: sqlc.yaml, the
// query files in queries/, the generated code in internal/sqlcdb beside a
// hand-written doc.go, and the schema read from runtime/schema/steps.
const (
	configFile = "sqlc.yaml"
	queriesDir = "queries"
	outDir     = "internal/sqlcdb"
	docFile    = "doc.go"
	stepsDir   = "runtime/schema/steps"
)

// Current regenerates the code of the sqlc package in the test's working
// directory (its package directory) into a temporary copy of its
// sqlc.yaml, queries/ and the schema steps, laid out as they are in the
// repository, and requires internal/sqlcdb to hold exactly those files
// with exactly those bytes besides its doc.go: a stale extra file fails
// too, which `sqlc diff` would miss. The first run builds sqlc (minutes);
// -short skips it.
func Current(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs sqlc")
	}
	pkg, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := moduleRoot(t, pkg)
	rel, err := filepath.Rel(root, pkg)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	tmpPkg := filepath.Join(tmp, rel)
	copyFile(t, filepath.Join(pkg, configFile), filepath.Join(tmpPkg, configFile))
	copyDir(t, filepath.Join(pkg, queriesDir), filepath.Join(tmpPkg, queriesDir))
	copyDir(t, filepath.Join(root, stepsDir), filepath.Join(tmp, stepsDir))
	cmd := exec.Command(sqlc[0], sqlc[1:]...)
	cmd.Dir = tmpPkg
	run(t, cmd)
	want, got := readDir(t, filepath.Join(tmpPkg, outDir)), readDir(t, filepath.Join(pkg, outDir))
	delete(got, docFile) // the package comment, the one file sqlc does not write
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s is stale (-generated +committed):\n%s\nregenerate in %s with: go run github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1 generate (and delete stale files)",
			filepath.Join(rel, outDir), diff, rel)
	}
}

// run runs cmd, failing t with its output when it fails.
func run(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, msg)
	}
}

// moduleRoot is the directory of the go.mod above dir.
func moduleRoot(t testing.TB, dir string) string {
	t.Helper()
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			t.Fatalf("no go.mod above %s", dir)
		}
		d = parent
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// readDir returns the files of dir by name.
func readDir(t testing.TB, dir string) map[string]string {
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
