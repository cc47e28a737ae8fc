package pgcluster

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStandbyPromotedAfterACrash builds what a failover test needs: a
// primary on a TCP port, committing synchronously to a streaming standby
// on another; the primary crashes, the standby is promoted and has every
// committed row, and takes writes through a connection string that lists
// both hosts.
func TestStandbyPromotedAfterACrash(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	primary, err := StartWith(ctx, Options{Port: freePort(t), Settings: map[string]string{
		"synchronous_commit":        "on",
		"synchronous_standby_names": "*",
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Stop()
	standby, err := primary.StartStandby(ctx, Options{Port: freePort(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Stop()

	both := "host=127.0.0.1,127.0.0.1 port=" + strconv.Itoa(primary.port) + "," + strconv.Itoa(standby.port) +
		" user=postgres dbname=postgres sslmode=disable target_session_attrs=read-write"
	run(t, both, "CREATE TABLE t (n int); INSERT INTO t VALUES (1)")
	primary.Crash()
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	run(t, both, "INSERT INTO t VALUES (2)")
	conn, err := pgx.Connect(ctx, both)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var sum, port int
	if err := conn.QueryRow(ctx, "SELECT sum(n), current_setting('port')::int FROM t").Scan(&sum, &port); err != nil {
		t.Fatal(err)
	}
	if sum != 3 || port != standby.port {
		t.Errorf("sum %d on port %d, want 3 on the promoted standby's %d", sum, port, standby.port)
	}
}

// run runs sql on a connection of its own to url.
func run(t *testing.T, url, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}

// freePort returns a loopback TCP port no one listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
