package sqlccheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// failures is a testing.TB that keeps what Current reports instead of
// failing the test that runs it.
type failures struct {
	testing.TB
	errs []string
}

func (f *failures) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// Current passes on a package whose code is regenerated, and fails, naming
// the package and the command, once a query is edited without
// regenerating, and again for a stray file in the generated directory.
func TestCurrentFailsOnAStaleQuery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sqlc")
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	copyDir(t, filepath.Join(moduleRoot(t, here), stepsDir), filepath.Join(mod, stepsDir))
	pkg := filepath.Join(mod, "runtime", "p")
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(pkg, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(configFile, `version: "2"
sql:
  - engine: postgresql
    schema: ../schema/steps
    queries: queries
    gen:
      go: {package: sqlcdb, out: internal/sqlcdb, sql_package: pgx/v5}
`)
	write("queries/q.sql", "-- name: CountEffects :one\nSELECT count(*) FROM idempotency_outbox;\n")
	cmd := exec.Command(sqlc[0], sqlc[1:]...)
	cmd.Dir = pkg
	run(t, cmd)
	write(filepath.Join(outDir, docFile), "package sqlcdb\n")
	t.Chdir(pkg)

	check := func(want string) {
		t.Helper()
		f := &failures{TB: t}
		Current(f)
		switch {
		case want == "" && len(f.errs) > 0:
			t.Errorf("Current failed a current package: %s", f.errs)
		case want != "" && (len(f.errs) != 1 || !strings.Contains(f.errs[0], want) ||
			!strings.Contains(f.errs[0], "regenerate in runtime/p with: go run github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1 generate")):
			t.Errorf("Current reported %q, want one failure naming %q and the command", f.errs, want)
		}
	}
	check("")
	write("queries/q.sql", "-- name: CountEffects :one\nSELECT count(*) FROM idempotency_outbox WHERE state = 'dead';\n")
	check("runtime/p/internal/sqlcdb is stale")
	write("queries/q.sql", "-- name: CountEffects :one\nSELECT count(*) FROM idempotency_outbox;\n")
	write(filepath.Join(outDir, "old.sql.go"), "package sqlcdb\n")
	check(`"old.sql.go"`)
}
