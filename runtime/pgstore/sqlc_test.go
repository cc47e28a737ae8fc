package pgstore_test

import (
	"os/exec"
	"testing"
)

// TestSQLCGeneratedCodeIsCurrent fails when internal/sqlcdb no longer is
// what sqlc v1.31.1 makes of schema/ and queries/. The first run builds
// sqlc (minutes); -short skips it.
func TestSQLCGeneratedCodeIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sqlc")
	}
	cmd := exec.Command("go", "run", "github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1", "diff")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sqlc diff: %v\n%s\nregenerate in runtime/pgstore with: go run github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1 generate", err, out)
	}
}
