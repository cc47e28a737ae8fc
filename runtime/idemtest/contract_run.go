package idemtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
	"github.com/idemgen/idemgen/runtime/schema"
)

// scopeHeader carries the scope of a contract-test request; the test's
// scope function trusts it.
const scopeHeader = "X-Idemtest-Scope"

// contractRun is the state RunContract and RunPhasedContract share between
// their scenarios.
type contractRun[T any] struct {
	c ContractCase[T] // for a phased operation, its Operation is unset
	// handler builds the operation's net/http handler on exec, under
	// contract: a typed or a phased one.
	handler func(exec *idem.Executor, contract idemimpl.Contract) (http.Handler, error)
	// contract is c.Operation.Contract with the defaults the executor
	// applies written out, so scenarios can compute with them.
	contract idemimpl.Contract
	pool     *pgxpool.Pool
}

// newContractRun checks c, opens a pool on c.ConnString and migrates the
// idempotency tables into it.
func newContractRun[T any](t *testing.T, c ContractCase[T]) *contractRun[T] {
	t.Helper()
	if c.Operation.Fingerprint == nil || c.Operation.Run == nil {
		t.Fatal("idemtest: RunContract needs the operation's Fingerprint and Run")
	}
	return startRun(t, c, c.Operation.Contract, func(exec *idem.Executor, contract idemimpl.Contract) (http.Handler, error) {
		op := c.Operation
		op.Contract = contract
		return idemimpl.NewTypedHandler(exec, op, trustedScope)
	})
}

// startRun checks the fixture of c, normalises contract, opens a pool on
// c.ConnString and migrates the idempotency tables into it.
func startRun[T any](t *testing.T, c ContractCase[T], contract idemimpl.Contract, handler func(*idem.Executor, idemimpl.Contract) (http.Handler, error)) *contractRun[T] {
	t.Helper()
	if c.Fixture.Request == nil || c.Fixture.Effects == nil {
		t.Fatal("idemtest: the contract tests need Fixture.Request and Fixture.Effects")
	}
	contract, err := httpapi.Normalize(contract)
	if err != nil {
		t.Fatalf("idemtest: %v", err)
	}
	r := &contractRun[T]{c: c, contract: contract, handler: handler}
	r.pool = openPool(t, c.ConnString, 8)
	if err := schema.Migrate(t.Context(), r.pool, ""); err != nil {
		t.Fatalf("idemtest: migrating the idempotency tables: %v", err)
	}
	return r
}

// openPool opens a pool of at most maxConns connections, closed when t ends.
func openPool(t *testing.T, connString string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		t.Fatalf("idemtest: connection string: %v", err)
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("idemtest: opening a pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// server returns the operation under contract served on its own executor
// over pool, configured by cfg and with the fault hooks, routed through an
// http.ServeMux as the generated Register routes it (see mountOn).
func (r *contractRun[T]) server(t *testing.T, pool *pgxpool.Pool, contract idemimpl.Contract, cfg idem.Config, hooks faults.Hooks) (http.Handler, *idem.Executor) {
	t.Helper()
	cfg.Pool = pool
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	exec, err := idem.NewExecutor(cfg)
	if err != nil {
		t.Fatalf("idemtest: NewExecutor: %v", err)
	}
	core.InstallFaults(exec, hooks)
	h, err := r.handler(exec, contract)
	if err != nil {
		t.Fatalf("idemtest: the operation's handler: %v", err)
	}
	mux, err := mountOn(r.c.Mount, contract, h)
	if err != nil {
		t.Fatalf("idemtest: %v", err)
	}
	return mux, exec
}

// trustedScope is the scope function of the contract tests.
func trustedScope(req *http.Request) (string, error) {
	s := req.Header.Get(scopeHeader)
	if s == "" {
		return "", errors.New("idemtest: request without " + scopeHeader)
	}
	return s, nil
}

// prepared is a request of the fixture, encoded once for all the requests
// a scenario sends with it.
type prepared struct {
	target      string
	header      http.Header
	body        []byte
	contentType string
}

// prepare encodes a fixture request and builds its URL.
func (r *contractRun[T]) prepare(t *testing.T, req *T) prepared {
	t.Helper()
	var params map[string]string
	if r.c.PathParams != nil {
		params = r.c.PathParams(req)
	}
	target, err := buildTarget(r.contract.Route, params)
	if err != nil {
		t.Fatalf("idemtest: %v", err)
	}
	var header http.Header
	if r.c.Parameters != nil {
		var query url.Values
		query, header = r.c.Parameters(req)
		if len(query) > 0 {
			target += "?" + query.Encode()
		}
	}
	encode := r.c.Encode
	if encode == nil {
		encode = encodeJSON[T]
	}
	b, contentType, err := encode(req)
	if err != nil {
		t.Fatalf("idemtest: encoding the fixture's request: %v", err)
	}
	return prepared{target: target, header: header, body: b, contentType: contentType}
}

// fresh prepares a new request of the fixture.
func (r *contractRun[T]) fresh(t *testing.T, scope string) prepared {
	t.Helper()
	return r.prepare(t, r.c.Fixture.Request(scope))
}

func encodeJSON[T any](body *T) ([]byte, string, error) {
	b, err := json.Marshal(body)
	return b, "application/json", err
}

// buildTarget replaces each {name} of route with the escaped path
// parameter.
func buildTarget(route string, params map[string]string) (string, error) {
	var b strings.Builder
	rest := route
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("route %q: unclosed {", route)
		}
		name := rest[open+1 : open+end]
		v := params[name]
		if v == "" {
			return "", fmt.Errorf("route %q: the fixture gave no value for path parameter %q", route, name)
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(v))
		rest = rest[open+end+1:]
	}
}

// request builds one HTTP request of p with scope and key, bound to ctx.
func (r *contractRun[T]) request(t *testing.T, ctx context.Context, p prepared, scope, key string) *http.Request {
	t.Helper()
	body := p.body
	if ptr := r.contract.Key.BodyPointer; ptr != "" {
		var err error
		if body, err = withBodyKey(body, p.contentType, ptr, key); err != nil {
			t.Fatalf("idemtest: putting the key into the body at %s: %v", ptr, err)
		}
	}
	req := httptest.NewRequestWithContext(ctx, r.contract.Method, p.target, bytes.NewReader(body))
	for name, values := range p.header {
		req.Header[name] = values
	}
	if p.contentType != "" {
		req.Header.Set("Content-Type", p.contentType)
	}
	if r.contract.Key.Header != "" {
		req.Header.Set(r.contract.Key.Header, key)
	}
	req.Header.Set(scopeHeader, scope)
	return req
}

// withBodyKey sets the member at the JSON pointer ptr of a JSON body to
// key, creating missing intermediate objects, and encodes the body again.
func withBodyKey(body []byte, contentType, ptr, key string) ([]byte, error) {
	if mt, _, err := mime.ParseMediaType(contentType); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil, fmt.Errorf("a key in the body needs a JSON body, the fixture's is %q", contentType)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("pointer %q does not start with /", ptr)
	}
	tokens := strings.Split(ptr[1:], "/")
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("the body is not a JSON object")
	}
	for _, tok := range tokens[:len(tokens)-1] {
		tok = unescape.Replace(tok)
		next, ok := obj[tok].(map[string]any)
		if !ok {
			if _, present := obj[tok]; present && obj[tok] != nil {
				return nil, fmt.Errorf("member %q is not an object", tok)
			}
			next = map[string]any{}
			obj[tok] = next
		}
		obj = next
	}
	obj[unescape.Replace(tokens[len(tokens)-1])] = key
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// freshName returns prefix and random hex: scopes and keys no earlier run
// on the same database used.
func freshName(t *testing.T, prefix string) string {
	t.Helper()
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatalf("idemtest: %v", err)
	}
	return prefix + "-" + hex.EncodeToString(b[:])
}

// freshKey returns a new idempotency key within the contract's length
// limit.
func (r *contractRun[T]) freshKey(t *testing.T) string {
	t.Helper()
	k := freshName(t, "k")
	if len(k) > r.contract.Key.MaxLength {
		k = k[len(k)-r.contract.Key.MaxLength:]
	}
	return k
}

// effects counts the business effects in scope.
func (r *contractRun[T]) effects(t *testing.T, scope string) int {
	t.Helper()
	n, err := r.c.Fixture.Effects(t.Context(), r.pool, scope)
	if err != nil {
		t.Fatalf("idemtest: Fixture.Effects(%q): %v", scope, err)
	}
	return n
}

// wantEffects fails t unless scope holds want effects.
func (r *contractRun[T]) wantEffects(t *testing.T, scope string, want int, when string) {
	t.Helper()
	if got := r.effects(t, scope); got != want {
		t.Fatalf("%s: %d business effects in the scope, want %d", when, got, want)
	}
}
