package idem_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// The reproduction of the failover's 500s: a connection that broke under
// an attempt (the server ended the session, as a primary's crash or
// pg_terminate_backend does) was answered 500 internal-error, the error
// taken for the business method's or for an internal one. It is an
// unknown outcome a retry resolves: 503 temporarily-unavailable with
// Retry-After, class connection, logged at Warn; the key is free, and the
// retry with the same key runs once.
func TestLostConnectionAnswers503(t *testing.T) {
	d := newDB(t)
	logs := &logCapture{}
	rec := &recorder{}
	kill := true
	fn := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		resp, err := createOrder(ctx, tx, op, req) // the order inserted
		if err != nil || !kill {
			return resp, err
		}
		kill = false
		if _, err := tx.Exec(ctx, "SELECT pg_terminate_backend(pg_backend_pid())"); err != nil {
			return nil, err
		}
		return resp, nil
	}
	h := newHandler(t, d.pool, orderContract(), idem.Config{Logger: slog.New(logs), Observer: rec}, fn)
	r := post(h, "tenant-a", "lost-1", `{"customer":"c","amount":1}`)
	if r.Status != http.StatusServiceUnavailable || problemType(t, r) != idem.ProblemUnavailable {
		t.Fatalf("status %d body %s, want 503 temporarily-unavailable", r.Status, r.Body)
	}
	if got := r.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	if w := logs.at(slog.LevelWarn); len(w) != 1 || w[0]["class"] != string(idem.ClassConnection) {
		t.Errorf("Warn records %v, want one of class connection", w)
	}
	if e := logs.at(slog.LevelError); len(e) != 0 {
		t.Errorf("Error records %v, want none", e)
	}
	if events := rec.all(); len(events) != 1 || events[0].Kind != idem.EventRolledBack || events[0].Class != idem.ClassConnection {
		t.Errorf("events %+v, want one rolled-back event of class connection", events)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 0 {
		t.Fatalf("%d orders after the lost connection, want none", n)
	}
	if r := post(h, "tenant-a", "lost-1", `{"customer":"c","amount":1}`); r.Status != http.StatusCreated || r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry: status %d body %s, want a new 201", r.Status, r.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders after the retry, want 1", n)
	}
}

// The unknown outcome itself: the connection breaks after the server
// committed the operation and before its answer to COMMIT reached the
// service (the server's CommandComplete "COMMIT" is cut off in the
// socket). The service cannot know; it answers 503, and the retry with the
// same key is answered from the record the commit stored: a replay of the
// same body, and one order.
func TestConnectionLostAtCommitIsReplayed(t *testing.T) {
	d := newDB(t)
	var armed atomic.Bool
	pool := d.newPool(t, 1, func(cfg *pgxpool.Config) {
		dial := cfg.ConnConfig.DialFunc
		cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &cutAtCommit{Conn: conn, armed: &armed}, nil
		}
	})
	logs := &logCapture{}
	fn := func(ctx context.Context, tx pgx.Tx, op *idemimpl.Operation, req *idemimpl.Request) (*idemimpl.Response, error) {
		armed.Store(true) // the next COMMIT is the executor's, with the record
		return createOrder(ctx, tx, op, req)
	}
	h := newHandler(t, pool, orderContract(), idem.Config{Logger: slog.New(logs)}, fn)
	r := post(h, "tenant-a", "commit-lost-1", `{"customer":"c","amount":1}`)
	if r.Status != http.StatusServiceUnavailable || problemType(t, r) != idem.ProblemUnavailable {
		t.Fatalf("status %d body %s, want 503 temporarily-unavailable", r.Status, r.Body)
	}
	if armed.Load() {
		t.Fatal("no COMMIT was cut off")
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Fatalf("%d orders after the lost COMMIT, want the 1 it committed", n)
	}
	retry := post(h, "tenant-a", "commit-lost-1", `{"customer":"c","amount":1}`)
	if retry.Status != http.StatusCreated || retry.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry: status %d body %s, want a replayed 201", retry.Status, retry.Body)
	}
	if n := d.count(t, "SELECT count(*) FROM orders"); n != 1 {
		t.Errorf("%d orders after the retry, want 1", n)
	}
	if w := logs.at(slog.LevelWarn); len(w) != 1 || w[0]["class"] != string(idem.ClassConnection) {
		t.Errorf("Warn records %v, want one of class connection", w)
	}
}

// cutAtCommit is a connection to PostgreSQL that, once armed, breaks
// instead of delivering the first read that holds the server's
// CommandComplete for COMMIT, as a connection reset would.
type cutAtCommit struct {
	net.Conn
	armed *atomic.Bool
}

func (c *cutAtCommit) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.armed.Load() && bytes.Contains(p[:n], []byte("COMMIT\x00")) {
		c.armed.Store(false)
		_ = c.Conn.Close()
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	return n, err
}

// A database the pool cannot connect to (a primary gone, its successor
// not yet promoted) is answered 503 with Retry-After, not 500.
func TestUnreachableDatabaseAnswers503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@"+addr+"/postgres?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	logs := &logCapture{}
	h := newHandler(t, pool, orderContract(), idem.Config{Logger: slog.New(logs)}, createOrder)
	r := post(h, "tenant-a", "unreachable-1", `{"customer":"c","amount":1}`)
	if r.Status != http.StatusServiceUnavailable || problemType(t, r) != idem.ProblemUnavailable {
		t.Fatalf("status %d body %s, want 503 temporarily-unavailable", r.Status, r.Body)
	}
	if w := logs.at(slog.LevelWarn); len(w) != 1 || w[0]["class"] != string(idem.ClassConnection) {
		t.Errorf("Warn records %v, want one of class connection", w)
	}
}
