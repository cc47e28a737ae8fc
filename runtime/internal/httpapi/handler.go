package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// PathParamFunc returns the value of a path parameter; the default is
// (*http.Request).PathValue of the standard mux. With chi, pass
// func(r *http.Request, name string) string { return chi.URLParam(r, name) }.
type PathParamFunc func(r *http.Request, name string) string

// HandlerOption configures NewTypedHandler and NewHandler.
type HandlerOption func(*handler)

// WithPathParams sets how path parameters are read.
func WithPathParams(f PathParamFunc) HandlerOption {
	return func(h *handler) { h.pathParam = f }
}

// errScope wraps a scope function's error.
var errScope = errors.New("idem: scope")

// prepared is what a handler computes from a request before the executor
// runs it: no database step, only the request's own content.
type prepared struct {
	sum     fingerprint.Sum
	request []byte // the request stored for the completer (phased operations); nil for none
	// fn returns the core.Func that runs the request, keeping the last
	// response it gave, with every header, in *answer.
	fn func(answer **Response) core.Func
	// current returns, under replay: current, the core.CurrentFunc that
	// answers a replay, keeping its response in *answer; nil otherwise.
	current func(answer **Response) core.CurrentFunc
}

// AsRejection reports whether an error of a business function is a
// business refusal, and which problem it answers with.
type AsRejection func(error) (Rejection, bool)

type handler struct {
	exec        *core.Executor
	contract    Contract
	policy      *core.Policy
	scope       func(*http.Request) (string, error)
	asRejection AsRejection
	pathParam   PathParamFunc
	maxBody     int64
	// prepare decodes and fingerprints a request, renders its natural key
	// and returns the business function that runs it.
	prepare func(req *Request) (prepared, error)
}

// newHandler checks and normalises what every handler needs.
func newHandler(h core.Holder, c Contract, scope func(*http.Request) (string, error), asRejection AsRejection, opts []HandlerOption) (*handler, error) {
	exec := core.Of(h)
	if exec == nil || scope == nil {
		return nil, errors.New("idem: a handler needs an executor and a scope function")
	}
	nc, err := Normalize(c)
	if err != nil {
		return nil, err
	}
	if asRejection == nil {
		asRejection = func(error) (Rejection, bool) { return Rejection{}, false }
	}
	hd := &handler{exec: exec, contract: nc, policy: nc.policy(), scope: scope, asRejection: asRejection,
		pathParam: (*http.Request).PathValue, maxBody: int64(nc.Fingerprint.MaxBodySize)}
	if hd.maxBody <= 0 {
		hd.maxBody = fingerprint.MaxBodySize
	}
	for _, o := range opts {
		o(hd)
	}
	return hd, nil
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
	resp, replay, err := h.serve(r)
	var fault *faults.Error
	if errors.As(err, &fault) && fault.Point == faults.AfterCommit {
		panic(http.ErrAbortHandler) // the injected fault: the response is lost
	}
	if err != nil {
		closeIfUnread(w, r, err)
		problemFor(err).write(w)
		return
	}
	header := w.Header()
	for name, values := range resp.Header {
		header[name] = values
	}
	if replay {
		header.Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// serve is the HTTP half of an operation: the key header and the scope
// (both before a byte of the body is read), the body, and the path
// parameters, then the attempt for the executor, which does every
// database step. It returns the response to send and whether it is a
// replay.
func (h *handler) serve(r *http.Request) (*Response, bool, error) {
	c := &h.contract
	var key string
	var err error
	if c.Key.Header != "" {
		if key, err = keyFromHeader(r.Header, c.Key); err != nil {
			return nil, false, &unreadBodyError{err}
		}
		if key == "" && !c.Key.Optional {
			return nil, false, &unreadBodyError{ErrKeyMissing}
		}
	}
	scope, err := h.scope(r)
	if err != nil {
		return nil, false, &unreadBodyError{scopeFailed(err)}
	}
	if err := checkScope(scope); err != nil {
		return nil, false, &unreadBodyError{err}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.maxBody+1))
	if err != nil {
		return nil, false, bodyReadError(err)
	}
	if int64(len(body)) > h.maxBody {
		return nil, false, ErrBodyTooLarge
	}
	if err := checkMediaType(r.Method, c.MediaTypes, r.Header, body); err != nil {
		return nil, false, err
	}
	if c.Key.BodyPointer != "" {
		if key, err = keyFromBody(body, c.Key); err != nil {
			return nil, false, err
		}
	}
	if key == "" && !c.Key.Optional {
		return nil, false, ErrKeyMissing
	}
	req := &Request{Method: r.Method, Route: c.Route, Query: r.URL.Query(), Header: r.Header, Body: body}
	if len(c.PathParams) > 0 {
		req.PathParams = make(map[string]string, len(c.PathParams))
		for _, name := range c.PathParams {
			req.PathParams[name] = h.pathParam(r, name)
		}
	}
	p, err := h.prepare(req)
	if err != nil {
		return nil, false, err
	}
	var answer, currentAnswer *Response
	at := core.Attempt{Policy: h.policy, Scope: scope, Key: key, Fingerprint: p.sum, Request: p.request}
	if p.current != nil {
		at.Current = p.current(&currentAnswer)
	}
	res, err := core.Execute(r.Context(), h.exec, at, p.fn(&answer))
	switch {
	case res == nil:
		return nil, false, err
	case res.Current:
		return currentAnswer, true, err
	case res.Replayed:
		resp, rerr := replayed(res)
		if rerr != nil {
			core.LogFailure(r.Context(), h.exec, at, res.OperationID, rerr)
			return nil, false, rerr
		}
		return resp, true, err
	}
	return answer, false, err
}
