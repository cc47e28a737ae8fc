package idemimpl

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// thing is the typed request of the test operation: the path parameter.
type thing struct{ ID string }

// renameThing is an operation whose route's wildcard is named differently
// from its parameter, as the generator names them, so it mounts behind
// PathValues; runs counts its business runs.
func renameThing(runs *atomic.Int32) (Typed[thing], func(http.Handler) (string, http.Handler)) {
	c := Contract{Operation: "renameThing", Method: "PUT", Route: "/things/{thing-id}/name", PathParams: []string{"thing-id"}}
	t := Typed[thing]{
		Contract: c,
		Decode:   func(r *Request) (*thing, error) { return &thing{ID: r.PathParams["thing-id"]}, nil },
		Fingerprint: func(_ *thing, params map[string]string) (fingerprint.Sum, error) {
			return fingerprint.SumWith(c.Method, c.Route, params, nil)
		},
		Run: func(_ context.Context, _ pgx.Tx, op *Operation, _ *Request, req *thing) (*Response, error) {
			runs.Add(1)
			return Respond[answer](op, created{ID: req.ID}, nil, answer.answer)
		},
	}
	m := Mount("PUT /things/{thingID}/name", func(r *http.Request) bool {
		id, ok := strings.CutPrefix(r.PathValue("thingID"), "t-")
		if !ok || id == "" {
			return false
		}
		r.SetPathValue("thing-id", id)
		return true
	})
	return t, m
}

// Routes builds each bound operation's handler behind its mount, and
// Register serves it on a ServeMux: the path taken apart into the
// parameter, a retry replayed, a path without the template's shape 404.
func TestRoutesAndRegister(t *testing.T) {
	exec, _ := migratedExecutor(t)
	var runs atomic.Int32
	typed, mount := renameThing(&runs)
	scope := func(*http.Request) (string, error) { return "tenant-1", nil }
	routes, err := Routes(exec, scope, nil, Bind(typed, mount))
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) != 1 || routes[0].Method != "PUT" || routes[0].Path != "/things/{thingID}/name" || routes[0].pattern != "PUT /things/{thingID}/name" {
		t.Fatalf("routes %+v, want the one of renameThing", routes)
	}
	mux := http.NewServeMux()
	if err := Register(mux, routes); err != nil {
		t.Fatal(err)
	}
	send := func(path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPut, path, nil)
		req.Header.Set("Idempotency-Key", "k-1")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		return rec
	}
	first := send("/things/t-7/name")
	if first.Code != http.StatusCreated || first.Body.String() != `{"id":"7"}` {
		t.Fatalf("first: %d %s, want 201 with the path parameter taken apart", first.Code, first.Body)
	}
	retry := send("/things/t-7/name")
	if retry.Code != http.StatusCreated || retry.Body.String() != `{"id":"7"}` || retry.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry: %d %s %v, want the stored answer replayed", retry.Code, retry.Body, retry.Header())
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the business ran %d times, want once", n)
	}
	if rec := send("/things/7/name"); rec.Code != http.StatusNotFound {
		t.Errorf("a path without the template's shape: %d, want 404", rec.Code)
	}
	if n := runs.Load(); n != 1 {
		t.Errorf("the business ran %d times after a 404, want once", n)
	}
}

// A route's method and path are its pattern's, without ServeMux's {$};
// a mount without path values serves the handler as it is.
func TestMountWithoutPathValues(t *testing.T) {
	pool := pgtest.Pool(t)
	exec, err := idem.NewExecutor(idem.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	typed, _ := renameThing(&runs)
	h := http.NotFoundHandler()
	if pattern, served := Mount("POST /things/{$}", nil)(h); pattern != "POST /things/{$}" || served == nil {
		t.Errorf("Mount without path values: %q, %v", pattern, served)
	}
	routes, err := Routes(exec, func(*http.Request) (string, error) { return "t", nil }, nil, Bind(typed, Mount("POST /things/{$}", nil)))
	if err != nil {
		t.Fatal(err)
	}
	if rt := routes[0]; rt.Method != "POST" || rt.Path != "/things/" || rt.pattern != "POST /things/{$}" {
		t.Errorf("route %+v, want POST /things/ at POST /things/{$}", rt)
	}
}

// Register returns an error instead of panicking on a pattern the mux
// refuses, and mounts none of the routes when they conflict among
// themselves; Routes passes on a handler that cannot be built.
func TestRegisterRefuses(t *testing.T) {
	h := http.NotFoundHandler()
	a := Route{Method: "PUT", Path: "/a/{x}", Handler: h, pattern: "PUT /a/{x}"}
	b := Route{Method: "PUT", Path: "/a/{y}", Handler: h, pattern: "PUT /a/{y}"}
	ok := Route{Method: "POST", Path: "/b", Handler: h, pattern: "POST /b"}
	mux := http.NewServeMux()
	if err := Register(mux, []Route{ok, a, b}); err == nil || !strings.Contains(err.Error(), "register PUT /a/{y}") {
		t.Fatalf("conflicting routes: error %v, want one naming the pattern", err)
	}
	if _, pattern := mux.Handler(httptest.NewRequest(http.MethodPost, "/b", nil)); pattern != "" {
		t.Errorf("POST /b mounted (%q) although the routes conflict", pattern)
	}
	if err := Register(mux, []Route{ok}); err != nil {
		t.Fatal(err)
	}
	if err := Register(mux, []Route{ok}); err == nil {
		t.Error("registering POST /b twice on one mux: no error")
	}
	var runs atomic.Int32
	typed, mount := renameThing(&runs)
	if _, err := Routes(nil, func(*http.Request) (string, error) { return "", nil }, nil, Bind(typed, mount)); err == nil {
		t.Error("Routes without an executor: no error")
	}
}
