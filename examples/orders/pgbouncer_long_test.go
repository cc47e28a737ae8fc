//go:build long

package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// startPgBouncer runs the machine's pgbouncer in transaction mode in
// front of the database at upstream and returns the URL a service
// connects through, without query parameters. It skips the test when
// pgbouncer is not installed. As root, pgbouncer refuses to run unless
// told a user to switch to: the postgres user where it exists, else
// nobody.
func startPgBouncer(t *testing.T, upstream string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/pgbouncer"); statErr != nil {
			t.Skip("examples/orders: no pgbouncer on this machine (apt-get install pgbouncer); the pooler test needs PgBouncer in transaction mode")
		}
		bin = "/usr/sbin/pgbouncer"
	}
	up, err := pgconn.ParseConfig(upstream)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil { // readable by the user pgbouncer switches to
		t.Fatal(err)
	}
	listen := freeAddr(t)
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`[databases]
pooled = %s
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %s
unix_socket_dir =
auth_type = any
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 20
ignore_startup_parameters = extra_float_digits
`, connString(up), port)
	ini := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(ini, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{ini}
	if os.Geteuid() == 0 {
		name := "nobody"
		if _, err := user.Lookup("postgres"); err == nil {
			name = "postgres"
		}
		args = []string{"-u", name, ini}
	}
	logs := filepath.Join(dir, "pgbouncer.log")
	out, err := os.Create(logs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start pgbouncer: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = out.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-done
		if t.Failed() {
			b, _ := os.ReadFile(logs)
			t.Logf("pgbouncer output:\n%s", b)
		}
	})
	pooled := (&url.URL{Scheme: "postgres", User: url.User(up.User), Host: listen, Path: "/pooled", RawQuery: "sslmode=disable"}).String()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := pgx.Connect(ctx, pooled)
		if err == nil {
			_ = conn.Close(ctx)
			return pooled
		}
		select {
		case <-ctx.Done():
			b, _ := os.ReadFile(logs)
			t.Fatalf("pgbouncer does not accept connections on %s: %v\n%s", listen, err, b)
		case <-done:
			b, _ := os.ReadFile(logs)
			t.Fatalf("pgbouncer exited:\n%s", b)
		case <-tick.C:
		}
	}
}

// connString is pgbouncer's connection string for the upstream
// database, its values quoted as libpq quotes them.
func connString(c *pgconn.Config) string {
	q := func(v string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'" }
	s := fmt.Sprintf("host=%s port=%d dbname=%s user=%s", q(c.Host), c.Port, q(c.Database), q(c.User))
	if c.Password != "" {
		s += " password=" + q(c.Password)
	}
	return s
}

// poolerModes are the query execution modes a service behind a
// transaction-mode pooler may name in its DATABASE_URL (README, "Behind a
// pooler"): both carry no prepared statement from one transaction to the
// next.
var poolerModes = []string{"cache_describe", "simple_protocol"}

// Must show 1 of the production issue: the example behind PgBouncer in
// transaction mode, under each of poolerModes, takes 2,000 orders sent as 3
// concurrent copies each while it is SIGKILLed and restarted every few
// seconds. No request is answered 500, every key has one order that all
// its copies were answered, and every effect of every order is acted on
// once.
func TestBehindPgBouncerUnderKills(t *testing.T) {
	for _, mode := range poolerModes {
		t.Run(mode, func(t *testing.T) {
			direct := pgtest.Database(t)
			pooled := startPgBouncer(t, direct) + "&default_query_exec_mode=" + mode
			res := storm(t, direct, pooled, 2000, 3)
			t.Logf("%s: %d keys × 3 copies, %d kills; %v", mode, res.keys, res.kills, res.tally)
		})
	}
}

// stormResult counts what one storm sent and met.
type stormResult struct {
	keys, kills int
	tally
}

// storm runs the example (connected through pooled) while sending keys
// orders as copies concurrent requests each (sendCopies), killing and
// restarting the example every two seconds until every copy has its
// answer; then checks through direct that each key has one order, that
// every copy was answered it, and that the effects were acted on once.
func storm(t *testing.T, direct, pooled string, keys, copies int) stormResult {
	t.Helper()
	bin := buildExample(t)
	logs := filepath.Join(t.TempDir(), "orders.log")
	addr := freeAddr(t)
	current := startChildAt(t, bin, pooled, logs, addr)

	res := stormResult{keys: keys}
	answers := make(chan keyAnswer, keys*copies)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sendCopies(addr, "pooled", keys, copies, answers)
	}()
	kill := time.NewTicker(2 * time.Second) // load, not ordering: no verdict depends on when it fires
	defer kill.Stop()
loop:
	for {
		select {
		case <-finished:
			break loop
		case <-kill.C:
			current.kill(t)
			res.kills++
			current = startChildAt(t, bin, pooled, logs, addr)
		}
	}
	close(answers)
	byKey, sum := collectAnswers(t, answers, nil)
	res.tally = sum
	if res.errors500 > 0 {
		t.Errorf("%d answers were 500 (the example's log says why)", res.errors500)
	}

	pool, err := pgxpool.New(t.Context(), direct)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	checkOncePerKey(t, pool, byKey, keys)
	return res
}
