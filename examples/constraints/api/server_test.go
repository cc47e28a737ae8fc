package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemtest"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// service answers every operation of the spec with its documented
// success, so that what a test sees of a request is what the generated
// handler decided about it.
type service struct{ UnimplementedHandlers }

func (service) CreateWidget(context.Context, pgx.Tx, *CreateWidgetOperation, *CreateWidgetRequest) (CreateWidgetResponse, error) {
	return CreateWidget201Response{}, nil
}

func (service) ArchiveWidget(context.Context, pgx.Tx, *ArchiveWidgetOperation, *ArchiveWidgetRequest) (ArchiveWidgetResponse, error) {
	return ArchiveWidget204Response{}, nil
}

func (service) CreateGadget(context.Context, pgx.Tx, *CreateGadgetOperation, *CreateGadgetRequest) (CreateGadgetResponse, error) {
	return CreateGadget201Response{}, nil
}

func (service) PostCustomers(context.Context, pgx.Tx, *PostCustomersOperation, *PostCustomersRequest) (PostCustomersResponse, error) {
	return PostCustomers200Response{}, nil
}

// server is the generated handlers mounted on a ServeMux over a real
// executor, on a schema of the test's own.
type server struct {
	t    *testing.T
	h    http.Handler
	pool *pgxpool.Pool
	keys atomic.Int64
}

func newServer(t *testing.T) *server {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), pgtest.ConnString(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := schema.Migrate(t.Context(), pool, ""); err != nil {
		t.Fatal(err)
	}
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	tenant := func(r *http.Request) (string, error) {
		tenant, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return tenant, nil
	}
	if err := Register(mux, exec, service{}, tenant); err != nil {
		t.Fatal(err)
	}
	return &server{t: t, h: mux, pool: pool}
}

// call is one request: the target (path and query), the body and its
// media type, extra headers, and the idempotency key (empty: a new one).
type call struct {
	target      string
	body        string
	contentType string
	header      http.Header
	key         string
}

func (s *server) do(c call) idemtest.Response {
	req := httptest.NewRequest(http.MethodPost, c.target, strings.NewReader(c.body))
	for name, values := range c.header {
		req.Header[name] = values
	}
	if c.body != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	req.Header.Set("Authorization", "Bearer tenant-1")
	key := c.key
	if key == "" {
		key = fmt.Sprintf("new-%d", s.keys.Add(1))
	}
	req.Header.Set("Idempotency-Key", key)
	return idemtest.Serve(s.h, req)
}

// records counts the idempotency records in the test's schema.
func (s *server) records() int {
	s.t.Helper()
	var n int
	if err := s.pool.QueryRow(s.t.Context(), "SELECT count(*) FROM idempotency_record").Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

// check is one row of a table over HTTP: the invalid request, the places
// of its violations, and the corrected request sent next with the same
// key.
type check struct {
	name  string
	bad   call
	want  []string
	valid call
}

// run sends each invalid request, requires 400 with exactly the violations
// wanted and no new idempotency record, then sends the corrected request
// with the same key and requires that it runs (status ok) and is stored.
func (s *server) run(t *testing.T, checks []check, ok int) {
	t.Helper()
	for i, tt := range checks {
		t.Run(tt.name, func(t *testing.T) {
			key := fmt.Sprintf("%s-%d", t.Name(), i)
			before := s.records()
			tt.bad.key = key
			if diff := cmp.Diff(tt.want, idemtest.Violations(t, s.do(tt.bad))); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if n := s.records(); n != before {
				t.Fatalf("idempotency records %d -> %d: the refused request was stored", before, n)
			}
			tt.valid.key = key
			if resp := s.do(tt.valid); resp.Status != ok {
				t.Fatalf("the corrected retry with the same key answers %d, want %d: %s", resp.Status, ok, resp.Body)
			}
			if n := s.records(); n != before+1 {
				t.Errorf("idempotency records %d -> %d after the corrected retry, want one more", before, n)
			}
		})
	}
}
