package idemimpl

import (
	"net/http"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// Phased is a generated phased operation whose request decodes to a T:
// its contract (with its lease), decoder, typed fingerprint, natural key
// and steps.
type Phased[T any] = httpapi.Phased[T]

// Step is one step of a phased operation: local (in a transaction of its
// own that commits its recovery point) or external (a call outside the
// database with the step's key, under an on-unknown policy).
type Step[T any] = httpapi.Step[T]

// OnUnknown is an external step's policy when its call's outcome is
// unknown.
type OnUnknown = httpapi.OnUnknown

// The on-unknown policies of external steps.
const (
	OnUnknownRetry  = httpapi.OnUnknownRetry
	OnUnknownVerify = httpapi.OnUnknownVerify
	OnUnknownHalt   = httpapi.OnUnknownHalt
)

// NewPhasedHandler returns the net/http handler of a generated phased
// operation, run by exec in the scope scope gives each request; it
// registers the operation with exec's completer (Maintain).
func NewPhasedHandler[T any](exec *idem.Executor, p Phased[T], scope idem.ScopeFunc, opts ...HandlerOption) (http.Handler, error) {
	if exec == nil {
		return nil, errNoExecutor
	}
	return httpapi.NewPhasedHandler(exec, p, scope, asRejection, opts...)
}
