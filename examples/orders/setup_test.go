package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// testLimits are the server's limits made short, so that the tests see
// each of them act within seconds. Write keeps the service's margin over
// Read plus the contract's 5s wait-timeout.
var testLimits = limits{
	ReadHeader:  time.Second,
	Read:        2 * time.Second,
	Write:       15 * time.Second,
	Idle:        time.Second,
	HeaderBytes: defaultLimits.HeaderBytes,
	BodyBytes:   defaultLimits.BodyBytes,
}

// testServer is the example service on a loopback port, on a database of
// its own, with testLimits.
type testServer struct {
	addr string
	pool *pgxpool.Pool
	// statuses counts the answers by status class (index 1 to 5), as the
	// server sent them, so that a test can require that no request at all
	// got a 5xx.
	statuses [6]atomic.Int64
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	h, err := newService(t.Context(), pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{addr: ln.Addr().String(), pool: pool}
	srv := newServer("", s.count(h), testLimits)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
		if n := s.statuses[5].Load(); n != 0 {
			t.Errorf("the server answered %d requests with a 5xx", n)
		}
	})
	return s
}

// count wraps h to record each answer's status class.
func (s *testServer) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		if c := rec.status / 100; c >= 1 && c <= 5 {
			s.statuses[c].Add(1)
		}
	})
}

// statusRecorder remembers the status a handler sent.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// rawConn is a client connection written byte by byte, for the requests
// that net/http's client would not send.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

// dial opens a raw connection to the server.
func (s *testServer) dial(t *testing.T) *rawConn {
	t.Helper()
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &rawConn{Conn: conn, br: bufio.NewReader(conn)}
}

// answer reads one HTTP answer within d: the response, its body read
// (resp.Body reads it again), or nil when the server closed the
// connection without one. It fails the test when d
// passes with the connection still open.
func (c *rawConn) answer(t *testing.T, d time.Duration) *http.Response {
	t.Helper()
	if err := c.SetReadDeadline(time.Now().Add(d)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		if isTimeout(err) {
			t.Fatalf("no answer and the connection still open after %v", d)
		}
		return nil
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

// closed reports whether the server closes the connection within d
// without sending anything more.
func (c *rawConn) closed(d time.Duration) bool {
	if err := c.SetReadDeadline(time.Now().Add(d)); err != nil {
		return false
	}
	_, err := c.br.ReadByte()
	return err != nil && !isTimeout(err)
}

// isTimeout reports whether err is a network time-out.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// orderJSON is a valid createOrder body for order number n with the items
// given as SKU and quantity pairs.
func orderJSON(n int, items ...string) string {
	var list []string
	for i := 0; i+1 < len(items); i += 2 {
		list = append(list, fmt.Sprintf(`{"sku":%q,"quantity":%s}`, items[i], items[i+1]))
	}
	return fmt.Sprintf(`{"shop_id":"s1","external_order_id":"A-%d","customer_id":"c42","items":[%s],`+
		`"delivery":{"name":"Ann","street":"1 Main St","city":"Oslo","postal_code":"0150","country":"NO"}}`,
		n, strings.Join(list, ","))
}
