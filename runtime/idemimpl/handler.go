package idemimpl

import (
	"errors"
	"net/http"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// Typed is a generated operation whose request body decodes to a T: its
// contract, decoder, typed fingerprint, natural key and business binding.
type Typed[T any] = httpapi.Typed[T]

// CurrentFunc is a generated operation's Current hook under replay:
// current: the current representation of what the completed operation
// created, answered to its retry instead of the stored answer.
type CurrentFunc[T any] = httpapi.CurrentFunc[T]

// HandlerOption configures NewTypedHandler and NewHandler.
type HandlerOption = httpapi.HandlerOption

// PathParamFunc returns the value of a path parameter of a request.
type PathParamFunc = httpapi.PathParamFunc

// WithPathParams sets how path parameters are read; the default is
// (*http.Request).PathValue of the standard mux.
func WithPathParams(f PathParamFunc) HandlerOption { return httpapi.WithPathParams(f) }

// errNoExecutor refuses a handler without an executor.
var errNoExecutor = errors.New("idem: a handler needs an executor and a scope function")

// NewTypedHandler returns the net/http handler of a generated operation,
// run by exec in the scope scope gives each request.
func NewTypedHandler[T any](exec *idem.Executor, t Typed[T], scope idem.ScopeFunc, opts ...HandlerOption) (http.Handler, error) {
	return newErasedHandler(exec, httpapi.Erase(&t), scope, opts)
}

// newErasedHandler is NewTypedHandler once its request type is erased,
// compiled once rather than for each operation's request type.
func newErasedHandler(exec *idem.Executor, t *httpapi.Erased, scope idem.ScopeFunc, opts []HandlerOption) (http.Handler, error) {
	if exec == nil {
		return nil, errNoExecutor
	}
	return httpapi.NewErasedHandler(exec, t, scope, asRejection, opts...)
}

// NewHandler is the raw-body form of NewTypedHandler: the fingerprint is
// the contract's fingerprint.Spec applied to the body bytes, and fn gets
// them undecoded.
func NewHandler(exec *idem.Executor, c Contract, scope idem.ScopeFunc, fn BusinessFunc, opts ...HandlerOption) (http.Handler, error) {
	if exec == nil {
		return nil, errNoExecutor
	}
	return httpapi.NewHandler(exec, c, scope, asRejection, fn, opts...)
}

// asRejection tells the handler which business errors are refusals: an
// *idem.Rejection, possibly wrapped.
func asRejection(err error) (httpapi.Rejection, bool) {
	var r *idem.Rejection
	if !errors.As(err, &r) {
		return httpapi.Rejection{}, false
	}
	return httpapi.Rejection(*r), true
}
