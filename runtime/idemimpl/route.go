package idemimpl

import (
	"fmt"
	"net/http"

	"github.com/idemgen/idemgen/runtime/idem"
)

// Route is one generated operation for any router: its method, its path
// pattern and its handler. The pattern has one {name} wildcard per
// templated segment, named so that net/http's ServeMux and chi accept it;
// the handler reads the wildcards with PathValue, which both routers set.
// Mount it elsewhere with a router that calls SetPathValue for its
// wildcards. Generated packages declare their Route as this type.
type Route struct {
	Method  string
	Path    string
	Handler http.Handler

	// pattern is the ServeMux pattern Register mounts.
	pattern string
}

// Mount is where a generated operation mounts on a router.
type Mount struct {
	// Path is the operation's path with one {wildcard} per templated
	// segment, which ServeMux and chi both accept.
	Path string
	// Pattern is the ServeMux pattern: the method and Path, with {$}
	// after a trailing slash so that it matches that path only.
	Pattern string
	// PathValues, when the generator had to take segments apart (a
	// wildcard named differently from its parameter, or text around a
	// parameter), sets each path parameter under its OpenAPI name
	// (SetPathValue) and reports false when the path does not have the
	// template's shape; nil when the wildcards are the parameters.
	PathValues func(*http.Request) bool
}

// Serve returns m's ServeMux pattern and h as the router serves it: behind
// PathValues, answering 404 to a path without the template's shape, when
// m has one. Routes and the generated contract tests mount through it.
func (m Mount) Serve(h http.Handler) (string, http.Handler) {
	if m.PathValues == nil {
		return m.Pattern, h
	}
	return m.Pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !m.PathValues(r) {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Binding is a generated operation bound to the service's business
// methods, and where it mounts: one entry of Routes.
type Binding struct {
	method  string
	mount   Mount
	handler func(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption) (http.Handler, error)
}

// Bind pairs the typed operation t with where it mounts.
func Bind[T any](t Typed[T], m Mount) Binding {
	return Binding{method: t.Contract.Method, mount: m, handler: func(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption) (http.Handler, error) {
		return NewTypedHandler(exec, t, scope, opts...)
	}}
}

// Routes returns the route of each binding, in the order given: its
// handler run by exec, in the scope scope gives each request, with opts.
func Routes(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption, bindings ...Binding) ([]Route, error) {
	routes := make([]Route, 0, len(bindings))
	for _, b := range bindings {
		h, err := b.handler(exec, scope, opts)
		if err != nil {
			return nil, err
		}
		pattern, served := b.mount.Serve(h)
		routes = append(routes, Route{Method: b.method, Path: b.mount.Path, Handler: served, pattern: pattern})
	}
	return routes, nil
}

// Register mounts routes on a standard library mux. It returns an error,
// and does not panic, when the mux refuses a pattern; the patterns are
// first checked among themselves, so such an error mounts none of them
// unless the conflict is with a route the mux already had.
func Register(mux *http.ServeMux, routes []Route) error {
	check := http.NewServeMux()
	for _, rt := range routes {
		if err := handle(check, rt); err != nil {
			return err
		}
	}
	for _, rt := range routes {
		if err := handle(mux, rt); err != nil {
			return err
		}
	}
	return nil
}

// handle registers rt on mux, turning the panic of a pattern the mux
// refuses into an error.
func handle(mux *http.ServeMux, rt Route) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("register %s: %v", rt.pattern, v)
		}
	}()
	mux.Handle(rt.pattern, rt.Handler)
	return nil
}
