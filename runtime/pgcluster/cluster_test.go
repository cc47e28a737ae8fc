package pgcluster

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestThrowawayCluster starts a cluster of its own even when DATABASE_URL
// is set, so the path a fresh machine takes is always exercised.
func TestThrowawayCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		c.Stop()
		t.Fatal(err)
	}
	var one int
	err = conn.QueryRow(ctx, "SELECT 1").Scan(&one)
	conn.Close(ctx)
	if err != nil || one != 1 {
		c.Stop()
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("cluster directory %s left behind: %v", c.dir, err)
	}
}

func TestNoBinariesSaysHowToGetPostgres(t *testing.T) {
	_, err := firstBinDir([]string{t.TempDir()})
	if !errors.Is(err, errNoPostgres) || !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("err = %v, want errNoPostgres, an ErrNotInstalled", err)
	}
	for _, want := range []string{"DATABASE_URL", "apt-get install postgresql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not mention %q", err, want)
		}
	}
}

func TestMissingProgramSaysHowToGetIt(t *testing.T) {
	err := needPrograms(t.TempDir(), "pg_basebackup")
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "pg_basebackup") || !strings.Contains(err.Error(), "postgresql-client") {
		t.Fatalf("err = %v, want an ErrNotInstalled naming pg_basebackup and its package", err)
	}
}
