package pgtest

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/pgcluster"
)

// server is the PostgreSQL the tests of this process use: DATABASE_URL, or
// a throwaway cluster started on first use.
var server struct {
	once    sync.Once
	url     string
	err     error
	cluster *pgcluster.Cluster
}

// startTimeout bounds initdb plus start-up of a throwaway cluster.
const startTimeout = 2 * time.Minute

// serverURL returns the server's connection string, starting a throwaway
// cluster the first time when DATABASE_URL is unset.
func serverURL() (string, error) {
	server.once.Do(func() {
		if url := os.Getenv("DATABASE_URL"); url != "" {
			server.url = url
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		server.cluster, server.err = pgcluster.Start(ctx)
		if server.err == nil {
			server.url = server.cluster.URL()
		}
	})
	return server.url, server.err
}

// Main runs a package's tests and then stops the throwaway cluster, if the
// tests started one. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if server.cluster != nil {
		if err := server.cluster.Stop(); err != nil && code == 0 {
			code = 1
		}
	}
	return code
}

// URL returns the connection string of the server the tests use, failing
// the test with instructions when there is none.
func URL(tb testing.TB) string {
	tb.Helper()
	url, err := serverURL()
	if err != nil {
		tb.Fatal(err)
	}
	return url
}
