package idemimpl

import (
	"net/http"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// StatusContract is the run-time contract of a generated status route: the
// operation whose attempts it tells, its route, and the path parameter and
// bound of the key.
type StatusContract = httpapi.StatusContract

// NewStatusHandler returns the handler of a status route, looked up on
// exec in the scope scope gives each request, the same as the operation's.
func NewStatusHandler(exec *idem.Executor, c StatusContract, scope idem.ScopeFunc, opts ...HandlerOption) (http.Handler, error) {
	if exec == nil {
		return nil, errNoExecutor
	}
	return httpapi.NewStatusHandler(exec, c, scope, opts...)
}

// BindStatus pairs a status route's contract with how it mounts (see
// Mount): one entry of Routes.
func BindStatus(c StatusContract, mount func(http.Handler) (string, http.Handler)) Binding {
	return Binding{mount: mount, handler: func(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption) (http.Handler, error) {
		return NewStatusHandler(exec, c, scope, opts...)
	}}
}
