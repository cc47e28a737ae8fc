//go:build long

package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgcluster"
)

// synchronousReplication are the primary's settings in the failover test:
// a commit returns once the standby has it on disk, so the order a client
// was answered is on the standby when it is promoted. With asynchronous
// replication a commit acknowledged just before the crash can be missing
// on the new primary: the client holds an answer whose order and record
// are gone, and its retry runs the order again as another one.
var synchronousReplication = map[string]string{
	"synchronous_commit":        "on",
	"synchronous_standby_names": "*",
}

// outage is how long the test leaves the service without a primary, as a
// failover manager takes to notice a dead primary: the clients meanwhile
// meet connect errors and retry.
const outage = time.Second

// Must show 2 of the production issue: the example serves a burst of
// orders, 3 concurrent copies per key, on a primary that replicates
// synchronously to a streaming standby, through a DATABASE_URL that lists
// both hosts with target_session_attrs=read-write. A third of the way
// into the burst the primary stops at once (a crash, as `pg_ctl stop -m
// immediate`) and, an outage later, the standby is promoted. Every copy retries its key
// until it gets a 201. Each key ends with one order on the new primary,
// the one all its copies were answered with the same body, and every
// effect acted on once; the unknown outcomes (no answer, 500, 503) are
// counted with how their retries resolved.
func TestFailoverMidBurst(t *testing.T) {
	const keys, copies = 2000, 3
	ctx := t.Context()
	primaryPort, standbyPort := freePort(t), freePort(t)
	primary, err := pgcluster.StartWith(ctx, pgcluster.Options{Port: primaryPort, Settings: synchronousReplication})
	needCluster(t, err)
	t.Cleanup(func() { _ = primary.Stop() })
	standby, err := primary.StartStandby(ctx, pgcluster.Options{Port: standbyPort})
	needCluster(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("standby's log:\n%s", standby.Log())
		}
		_ = standby.Stop()
	})
	url := fmt.Sprintf("host=127.0.0.1,127.0.0.1 port=%d,%d user=postgres dbname=postgres sslmode=disable "+
		"target_session_attrs=read-write connect_timeout=5", primaryPort, standbyPort)

	bin := buildExample(t)
	logs := filepath.Join(t.TempDir(), "orders.log")
	example := startChild(t, bin, url, logs)

	answers := make(chan keyAnswer, keys*copies)
	go func() {
		sendCopies(example.addr, "failover", keys, copies, answers)
		close(answers)
	}()
	began := time.Now()
	var crashed, promoted time.Duration
	byKey, sum := collectAnswers(t, answers, func(n int) {
		if n != keys*copies/3 {
			return
		}
		crashed = time.Since(began)
		primary.Crash()
		time.Sleep(outage) // the failover manager's detection time: load, not ordering
		if err := standby.Promote(ctx); err != nil {
			t.Error(err)
		}
		promoted = time.Since(began)
	})
	burst := time.Since(began)
	if promoted == 0 {
		t.Fatal("the burst ended before the failover")
	}
	select {
	case <-example.done:
		t.Fatal("the example exited during the failover")
	default:
	}

	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var port int
	if err := pool.QueryRow(ctx, "SELECT current_setting('port')::int").Scan(&port); err != nil {
		t.Fatal(err)
	}
	if port != standbyPort {
		t.Fatalf("the checks would read port %d, not the promoted standby's %d", port, standbyPort)
	}
	checkOncePerKey(t, pool, byKey, keys)
	if sum.unknown == 0 {
		t.Error("no copy met an unknown outcome: the failover did not happen mid-burst")
	}
	t.Logf("%d keys × %d copies; primary crashed at %v, standby promoted at %v, burst done at %v, effects done at %v",
		keys, copies, crashed.Round(time.Millisecond), promoted.Round(time.Millisecond), burst.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	t.Logf("%v", sum)
	if sum.errors500 > 0 {
		t.Errorf("%d answers were 500: a lost connection is answered 503 (the example's log says why)", sum.errors500)
	}

	// The attempts whose connection broke, from the example's log: those
	// whose order exists committed before the connection was lost (at
	// COMMIT), and their key must have been answered that order; the
	// others committed nothing, and a retry ran their key.
	lost := lostOperations(t, logs)
	rows, err := pool.Query(ctx, "SELECT id::text FROM orders WHERE id::text = ANY($1)", lost)
	if err != nil {
		t.Fatal(err)
	}
	landed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	for _, id := range byKey {
		answered[id] = true
	}
	for _, id := range landed {
		if !answered[id] {
			t.Errorf("operation %s lost its connection after its order committed, and its key was answered another order", id)
		}
	}
	t.Logf("%d attempts lost their connection (the example's log, class connection): %d had committed their order, which their key was answered on retry; %d had committed nothing",
		len(lost), len(landed), len(lost)-len(landed))
}

// needCluster skips the test when err says that a PostgreSQL program the
// failover needs is not installed, and fails it on any other error.
func needCluster(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, pgcluster.ErrNotInstalled) {
		t.Skipf("examples/orders: the failover test builds a primary and a standby with the machine's PostgreSQL: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// lostOperations returns the operation ids of the attempts the example
// logged as failed with class connection.
func lostOperations(t *testing.T, logs string) []string {
	t.Helper()
	b, err := os.ReadFile(logs)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "class=connection") {
			continue
		}
		if _, rest, ok := strings.Cut(line, " operation_id="); ok {
			id, _, _ := strings.Cut(rest, " ")
			ids = append(ids, id)
		}
	}
	return ids
}

// freePort returns a loopback TCP port no one listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	_, port, err := net.SplitHostPort(freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
