package idemtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// StatusCase is a generated status route under test, with the operation
// whose attempts it tells.
type StatusCase[T any] struct {
	// Case is the operation's, as its RunContract gets it.
	Case ContractCase[T]
	// Status is the route's generated contract.
	Status idemimpl.StatusContract
	// Mount is the route's generated mount function; nil mounts it at its
	// contract's method and route as they are.
	Mount func(http.Handler) (string, http.Handler)
}

// RunStatus runs the status route's contract as subtests of t, against
// PostgreSQL, with the operation's fixture: each scenario serves the
// operation and the route on one executor, as the generated Routes does,
// in scopes of its own.
//
//   - unknown key: 404 attempt-unknown, and the lookup ran nothing: the
//     key's first request afterwards runs as new.
//   - other scope: a key another scope used answers byte for byte as an
//     unknown key (status, headers but Date, body).
//   - in progress, then completed: while the first request is held before
//     its commit the route answers in_progress; once it completed, the
//     stored status, Location and answer with the operation id.
//   - expired: past the contract's retention, by the database's clock,
//     expired with the operation id.
//   - malformed key: 400 idempotency-key-malformed naming the parameter.
func RunStatus[T any](t *testing.T, c StatusCase[T]) {
	t.Helper()
	if c.Status.Operation != c.Case.Operation.Contract.Operation {
		t.Fatalf("idemtest: status route of %q, operation %q", c.Status.Operation, c.Case.Operation.Contract.Operation)
	}
	s := &statusRun[T]{run: newContractRun(t, c.Case), c: c}
	t.Run("unknown_key_404_runs_nothing", s.unknownKey)
	t.Run("other_scope_key_answers_as_unknown", s.otherScope)
	t.Run("in_progress_then_completed", s.inProgressThenCompleted)
	t.Run("expired_past_retention", s.expired)
	t.Run("malformed_key_400", s.malformedKey)
}

// statusRun is the state of RunStatus's scenarios.
type statusRun[T any] struct {
	run *contractRun[T]
	c   StatusCase[T]
}

// servers returns the operation's and the status route's handlers on one
// executor, configured by cfg and with the fault hooks.
func (s *statusRun[T]) servers(t *testing.T, cfg idem.Config, hooks faults.Hooks) (op, status http.Handler) {
	t.Helper()
	op, exec := s.run.server(t, s.run.pool, s.run.contract, cfg, hooks)
	h, err := idemimpl.NewStatusHandler(exec, s.c.Status, trustedScope)
	if err != nil {
		t.Fatalf("idemtest: the status route's handler: %v", err)
	}
	pattern, served := s.c.Status.Method+" "+s.c.Status.Route, h
	if s.c.Mount != nil {
		pattern, served = s.c.Mount(h)
	}
	mux := http.NewServeMux()
	if err := handle(mux, pattern, served); err != nil {
		t.Fatalf("idemtest: routing the status route at %q: %v", pattern, err)
	}
	return op, mux
}

// templateParam matches a {name} of a path template.
var templateParam = regexp.MustCompile(`\{[^}]*\}`)

// lookup asks the status route about key in scope; a path parameter of
// the route other than the key's gets a placeholder.
func (s *statusRun[T]) lookup(h http.Handler, scope, key string) Response {
	keyParam := "{" + s.c.Status.Parameter + "}"
	target := templateParam.ReplaceAllStringFunc(s.c.Status.Route, func(p string) string {
		if p == keyParam {
			return url.PathEscape(key)
		}
		return "x"
	})
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set(scopeHeader, scope)
	return Serve(h, req)
}

// statusAnswer is a status route's 200 body.
type statusAnswer struct {
	State       string          `json:"state"`
	OperationID string          `json:"operation_id"`
	Status      int             `json:"status"`
	Location    string          `json:"location"`
	ContentType string          `json:"content_type"`
	Response    json.RawMessage `json:"response"`
}

// wantState fails t unless res is a 200 status answer in state, and
// returns it.
func wantState(t *testing.T, what string, res Response, state idem.AttemptState) statusAnswer {
	t.Helper()
	if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: got %s; want 200 application/json in state %s", what, describe(res), state)
	}
	var a statusAnswer
	if err := json.Unmarshal(res.Body, &a); err != nil {
		t.Fatalf("%s: status body %s: %v", what, res.Body, err)
	}
	if a.State != string(state) {
		t.Fatalf("%s: state %q, want %q (body %s)", what, a.State, state, res.Body)
	}
	return a
}

func (s *statusRun[T]) unknownKey(t *testing.T) {
	op, status := s.servers(t, idem.Config{}, faults.Hooks{})
	scope := freshName(t, "status-unknown")
	key, p := s.run.freshKey(t), s.run.fresh(t, scope)
	wantProblem(t, "lookup of a key never sent", s.lookup(status, scope, key), http.StatusNotFound, idem.ProblemAttemptUnknown)
	s.run.wantEffects(t, scope, 0, "after the lookup")
	first := Serve(op, s.run.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "first request after the lookup", first, false)
}

func (s *statusRun[T]) otherScope(t *testing.T) {
	op, status := s.servers(t, idem.Config{}, faults.Hooks{})
	owner, other := freshName(t, "status-owner"), freshName(t, "status-other")
	key := s.run.freshKey(t)
	wantAccepted(t, "the owner's request", Serve(op, s.run.request(t, t.Context(), s.run.fresh(t, owner), owner, key)), false)
	wantState(t, "the owner's lookup", s.lookup(status, owner, key), idem.AttemptCompleted)
	foreign := s.lookup(status, other, key)
	unknown := s.lookup(status, other, s.run.freshKey(t))
	wantProblem(t, "another scope's key", foreign, http.StatusNotFound, idem.ProblemAttemptUnknown)
	foreign.Header.Del("Date")
	unknown.Header.Del("Date")
	if foreign.Status != unknown.Status || !bytes.Equal(foreign.Body, unknown.Body) || !equalHeader(foreign.Header, unknown.Header) {
		t.Fatalf("another scope's key answers %s, an unknown key %s: they must be the same bytes", describe(foreign), describe(unknown))
	}
}

// equalHeader reports whether a and b hold the same fields and values.
func equalHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb := b[k]
		if len(va) != len(vb) {
			return false
		}
		for i := range va {
			if va[i] != vb[i] {
				return false
			}
		}
	}
	return true
}

func (s *statusRun[T]) inProgressThenCompleted(t *testing.T) {
	hold := faults.NewHold()
	held, status := s.servers(t, idem.Config{}, faults.Hooks{AfterBusiness: hold.Hook})
	scope := freshName(t, "status-progress")
	key, p := s.run.freshKey(t), s.run.fresh(t, scope)
	var first Response
	done := make(chan struct{})
	req := s.run.request(t, t.Context(), p, scope, key)
	go func() {
		defer close(done)
		first = Serve(held, req)
	}()
	defer func() {
		hold.Release()
		<-done
	}()
	select {
	case <-hold.Reached():
	case <-done:
		t.Fatalf("first request: got %s without reaching the AfterBusiness hook", describe(first))
	}
	wantState(t, "lookup while the first request is held", s.lookup(status, scope, key), idem.AttemptInProgress)
	hold.Release()
	<-done
	wantAccepted(t, "held first request, released", first, false)
	a := wantState(t, "lookup after the first request completed", s.lookup(status, scope, key), idem.AttemptCompleted)
	if a.OperationID == "" || a.Status != first.Status || a.Location != first.Header.Get("Location") {
		t.Fatalf("completed lookup %+v; want the operation id, status %d and Location %q", a, first.Status, first.Header.Get("Location"))
	}
	if !sameJSON(a.Response, first.Body) {
		t.Fatalf("completed lookup's response %s; want the stored answer %s", a.Response, first.Body)
	}
}

// sameJSON reports whether a and b are the same JSON document up to
// insignificant white space.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

func (s *statusRun[T]) expired(t *testing.T) {
	ret := s.run.contract.Retention
	op, status := s.servers(t, idem.Config{}, faults.Hooks{})
	scope := freshName(t, "status-expired")
	key := s.run.freshKey(t)
	wantAccepted(t, "first request", Serve(op, s.run.request(t, t.Context(), s.run.fresh(t, scope), scope, key)), false)
	done := wantState(t, "lookup within retention", s.lookup(status, scope, key), idem.AttemptCompleted)
	if err := Age(t.Context(), s.run.pool, scope, ret+time.Second); err != nil {
		t.Fatal(err)
	}
	a := wantState(t, "lookup past retention", s.lookup(status, scope, key), idem.AttemptExpired)
	if a.OperationID != done.OperationID || a.Response != nil {
		t.Fatalf("expired lookup %+v; want operation id %s and no answer", a, done.OperationID)
	}
}

func (s *statusRun[T]) malformedKey(t *testing.T) {
	_, status := s.servers(t, idem.Config{}, faults.Hooks{})
	res := s.lookup(status, freshName(t, "status-malformed"), `"unterminated`)
	wantProblem(t, "lookup of a malformed key", res, http.StatusBadRequest, idem.ProblemKeyMalformed)
	if !bytes.Contains(res.Body, []byte(`"parameter":"`+s.c.Status.Parameter+`"`)) {
		t.Fatalf("malformed key: %s does not name the parameter %s", res.Body, s.c.Status.Parameter)
	}
}
