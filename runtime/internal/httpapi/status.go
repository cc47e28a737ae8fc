package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/idemkey"
	"github.com/idemgen/idemgen/runtime/jsondecode"
)

// ProblemAttemptUnknown is the problem type of a status lookup whose key
// no attempt of the operation holds in the caller's scope.
const ProblemAttemptUnknown = ProblemTypeBase + "attempt-unknown"

// AttemptStatus is what became of an attempt, with its stored answer as
// HTTP: runtime/idem's Executor.Status and the status route read it.
type AttemptStatus struct {
	State core.AttemptState
	// OperationID is the operation's id, to quote to support; "" while
	// unknown, and for an attempt in progress that wrote no record yet.
	OperationID string
	// Status, Header and Body are the stored answer of a completed or
	// failed operation, as a retry replays it (Header: the headers kept
	// for replays); zero otherwise.
	Status int
	Header http.Header
	Body   []byte
}

// LookUp tells what became of the attempt of operation under key in
// scope, on the executor h holds (core.Status); key is in either form a
// client sends it, and errors wrap ErrKeyMalformed when it is neither.
func LookUp(ctx context.Context, h core.Holder, operation, scope, key string) (AttemptStatus, error) {
	k, err := idemkey.Parse(key, 0)
	if err != nil {
		return AttemptStatus{}, err
	}
	st, err := core.Status(ctx, h, core.Lookup{Operation: operation, Scope: scope, Key: k})
	if err != nil {
		return AttemptStatus{}, err
	}
	out := AttemptStatus{State: st.State, OperationID: st.OperationID}
	if st.Outcome != nil {
		res, err := replayed(&core.Result{Outcome: *st.Outcome, OperationID: st.OperationID})
		if err != nil {
			return AttemptStatus{}, err
		}
		out.Status, out.Header, out.Body = res.Status, res.Header, res.Body
	}
	return out, nil
}

// StatusContract is the run-time contract of a status route: the
// operation whose attempts it tells, the route, and where the key is.
type StatusContract struct {
	Operation string // the operation's name, as its Contract.Operation
	Method    string // GET
	Route     string // the status route's path template, such as /orders/attempts/{key}
	Parameter string // the path parameter that carries the key
	// MaxLength bounds the key as the operation's KeySpec.MaxLength does.
	MaxLength int
}

// statusHandler answers a status route.
type statusHandler struct {
	exec      *core.Executor
	c         StatusContract
	scope     func(*http.Request) (string, error)
	pathParam PathParamFunc
}

// NewStatusHandler returns the handler of a status route, which tells
// what became of an attempt of c.Operation, looked up on exec in the scope
// scope gives each request: the same trusted scope as the operation's own
// requests, so that another scope's key answers as an unknown one. It
// runs nothing and changes nothing. Of opts only WithPathParams applies.
func NewStatusHandler(h core.Holder, c StatusContract, scope func(*http.Request) (string, error), opts ...HandlerOption) (http.Handler, error) {
	exec := core.Of(h)
	if exec == nil || scope == nil {
		return nil, errors.New("idem: a status handler needs an executor and a scope function")
	}
	if c.Operation == "" || c.Parameter == "" {
		return nil, errors.New("idem: a status handler needs the operation and the key's path parameter")
	}
	hd := &handler{pathParam: (*http.Request).PathValue}
	for _, o := range opts {
		o(hd)
	}
	return &statusHandler{exec: exec, c: c, scope: scope, pathParam: hd.pathParam}, nil
}

// statusBody is the JSON answer of a known attempt (200).
type statusBody struct {
	State       core.AttemptState `json:"state"`
	OperationID string            `json:"operation_id,omitempty"`
	// Status, Location, ContentType and Response are the stored answer
	// of a completed or failed operation.
	Status      int             `json:"status,omitempty"`
	Location    string          `json:"location,omitempty"`
	ContentType string          `json:"content_type,omitempty"`
	Response    json.RawMessage `json:"response,omitempty"`
}

func (s *statusHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	key, err := idemkey.Parse(s.pathParam(r, s.c.Parameter), s.c.MaxLength)
	if err != nil {
		reason := strings.TrimPrefix(strings.TrimPrefix(err.Error(), idemkey.ErrMalformed.Error()), ": ")
		p := &Problem{Type: ProblemKeyMalformed, Title: "Idempotency key malformed", Status: http.StatusBadRequest,
			Detail:     fmt.Sprintf("The path parameter %s is not an idempotency key: %s.", s.c.Parameter, reason),
			Violations: []jsondecode.Violation{{In: "path", Parameter: s.c.Parameter, Reason: reason}}}
		p.write(w)
		return
	}
	scope, err := s.scope(r)
	if err != nil {
		problemFor(scopeFailed(err)).write(w)
		return
	}
	st, err := LookUp(r.Context(), s.exec, s.c.Operation, scope, key)
	if err != nil {
		problemFor(err).write(w)
		return
	}
	if st.State == core.AttemptUnknown {
		unknownAttempt.write(w)
		return
	}
	b := statusBody{State: st.State, OperationID: st.OperationID, Status: st.Status}
	if st.Status != 0 {
		b.Location = st.Header.Get("Location")
		b.ContentType = st.Header.Get("Content-Type")
		b.Response = storedJSON(b.ContentType, st.Body)
	}
	body, err := json.Marshal(b)
	if err != nil {
		problemFor(err).write(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// unknownAttempt answers a key no attempt of the operation holds in the
// caller's scope. It is the same bytes for every such key, whoever else
// may hold it.
var unknownAttempt = &Problem{Type: ProblemAttemptUnknown, Title: "Attempt unknown", Status: http.StatusNotFound,
	Detail: "No attempt of this operation with this idempotency key is known in your scope."}

// storedJSON is a stored body as the status answer's response member: the
// JSON document itself under a JSON media type, otherwise a JSON string of
// the body's text; nil for no body.
func storedJSON(contentType string, body []byte) json.RawMessage {
	if len(body) == 0 {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	if (mt == "application/json" || strings.HasSuffix(mt, "+json")) && json.Valid(body) {
		return body
	}
	s, _ := json.Marshal(string(body))
	return s
}
