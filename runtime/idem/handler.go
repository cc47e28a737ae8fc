package idem

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// ScopeFunc returns the trusted scope (tenant, principal) of a request,
// from authentication the server already did, never from the request body.
// An error answers 403 scope-unavailable.
type ScopeFunc func(*http.Request) (string, error)

// PathParamFunc returns the value of a path parameter; the default is
// (*http.Request).PathValue of the standard mux. With chi, pass
// func(r *http.Request, name string) string { return chi.URLParam(r, name) }.
type PathParamFunc func(r *http.Request, name string) string

// HandlerOption configures NewHandler.
type HandlerOption func(*handler)

// WithPathParams sets how path parameters are read.
func WithPathParams(f PathParamFunc) HandlerOption {
	return func(h *handler) { h.pathParam = f }
}

// errScope wraps a ScopeFunc error.
var errScope = errors.New("idem: scope")

type handler struct {
	exec      *Executor
	contract  Contract
	scope     ScopeFunc
	pathParam PathParamFunc
	maxBody   int64
	// prepare fingerprints a request and returns the business function
	// that runs it: the raw-body path of NewHandler or the typed path of
	// NewTypedHandler.
	prepare func(req *Request) (fingerprint.Sum, BusinessFunc, error)
}

// NewHandler returns the net/http handler of one idempotent operation. It
// parses the key (400 when missing and required, empty, too long or
// malformed), reads the body up to the fingerprint's size limit (413),
// takes the scope from scope, fingerprints the request and runs fn through
// exec. A replay carries the stored status, body and headers plus
// Idempotent-Replayed: true. Errors are application/problem+json with the
// types of docs/problems.md.
func NewHandler(exec *Executor, c Contract, scope ScopeFunc, fn BusinessFunc, opts ...HandlerOption) (http.Handler, error) {
	if fn == nil {
		return nil, errors.New("idem: NewHandler needs a business function")
	}
	h, err := newHandler(exec, c, scope, opts)
	if err != nil {
		return nil, err
	}
	spec, method, route := h.contract.Fingerprint, h.contract.Method, h.contract.Route
	h.prepare = func(req *Request) (fingerprint.Sum, BusinessFunc, error) {
		sum, err := spec.Sum(fingerprint.Request{Method: method, Route: route, PathParams: req.PathParams, Body: req.Body})
		return sum, fn, bodyError(err)
	}
	return h, nil
}

// newHandler checks and normalises what every handler needs.
func newHandler(exec *Executor, c Contract, scope ScopeFunc, opts []HandlerOption) (*handler, error) {
	if exec == nil || scope == nil {
		return nil, errors.New("idem: a handler needs an executor and a scope function")
	}
	nc, err := c.normalized()
	if err != nil {
		return nil, err
	}
	h := &handler{exec: exec, contract: nc, scope: scope, pathParam: (*http.Request).PathValue,
		maxBody: int64(nc.Fingerprint.MaxBodySize)}
	if h.maxBody <= 0 {
		h.maxBody = fingerprint.MaxBodySize
	}
	for _, o := range opts {
		o(h)
	}
	return h, nil
}

// bodyError maps a fingerprint error to the request error it answers with.
func bodyError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fingerprint.ErrBodyTooLarge):
		return ErrBodyTooLarge
	case errors.Is(err, fingerprint.ErrInvalidJSON), errors.Is(err, fingerprint.ErrInvalidValue):
		return fmt.Errorf("%w: %s", ErrInvalidBody, strings.TrimPrefix(err.Error(), "fingerprint: "))
	}
	return err
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res, err := h.serve(r)
	var hookErr *HookError
	if errors.As(err, &hookErr) && hookErr.Point == HookAfterCommit {
		panic(http.ErrAbortHandler) // the injected fault: the response is lost
	}
	if err != nil {
		problemFor(err).write(w)
		return
	}
	header := w.Header()
	for name, values := range res.Response.Header {
		header[name] = values
	}
	if res.Replayed {
		header.Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(res.Response.Status)
	_, _ = w.Write(res.Response.Body)
}

func (h *handler) serve(r *http.Request) (*Result, error) {
	c := &h.contract
	var key string
	var err error
	if c.Key.Header != "" {
		if key, err = keyFromHeader(r.Header, c.Key); err != nil {
			return nil, err
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidBody, err)
	}
	if int64(len(body)) > h.maxBody {
		return nil, ErrBodyTooLarge
	}
	if c.Key.BodyPointer != "" {
		if key, err = keyFromBody(body, c.Key); err != nil {
			return nil, err
		}
	}
	if key == "" && c.Key.Required {
		return nil, ErrKeyMissing
	}
	scope, err := h.scope(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errScope, err)
	}
	req := &Request{Method: r.Method, Route: c.Route, Header: r.Header, Body: body}
	if len(c.PathParams) > 0 {
		req.PathParams = make(map[string]string, len(c.PathParams))
		for _, name := range c.PathParams {
			req.PathParams[name] = h.pathParam(r, name)
		}
	}
	sum, fn, err := h.prepare(req)
	if err != nil {
		return nil, err
	}
	if key == "" {
		return h.exec.unprotected(r.Context(), c, req, fn)
	}
	return h.exec.do(r.Context(), c, Call{Scope: scope, Key: key, Fingerprint: sum, Request: req}, fn)
}
