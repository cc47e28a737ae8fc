package idemimpl

import (
	"fmt"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
	"net/http"
	"strings"

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

// Mount returns how a generated operation mounts on a router: a function
// that gives its ServeMux pattern (METHOD /path, with {$} after a trailing
// slash so that it matches that path only) and the operation's handler h
// as the router serves it. pathValues, set when the generator had to take
// segments apart (a wildcard named differently from its parameter, or text
// around a parameter), sets each path parameter under its OpenAPI name
// (SetPathValue) and reports false when the path does not have the
// template's shape, which answers 404; nil when the wildcards are the
// parameters. Routes and the generated contract tests mount through it.
func Mount(pattern string, pathValues func(*http.Request) bool) func(h http.Handler) (string, http.Handler) {
	return func(h http.Handler) (string, http.Handler) {
		if pathValues == nil {
			return pattern, h
		}
		return pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !pathValues(r) {
				http.NotFound(w, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
}

// Binding is a generated operation bound to the service's business
// methods, and how it mounts: one entry of Routes.
type Binding struct {
	mount   func(http.Handler) (string, http.Handler)
	handler func(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption) (http.Handler, error)
}

// Bind pairs the typed operation t with how it mounts (see Mount).
func Bind[T any](t Typed[T], mount func(http.Handler) (string, http.Handler)) Binding {
	return bindErased(httpapi.Erase(&t), mount)
}

// bindErased is Bind once the request type is erased. It is kept out of
// line so that its closure is compiled once, not in each instance of Bind.
//
//go:noinline
func bindErased(t *httpapi.Erased, mount func(http.Handler) (string, http.Handler)) Binding {
	return Binding{mount: mount, handler: func(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption) (http.Handler, error) {
		return newErasedHandler(exec, t, scope, opts)
	}}
}

// Routes returns the route of each binding, in the order given: its
// handler run by exec, in the scope scope gives each request, with opts,
// as its mount serves it; the route's method and path are its pattern's,
// the path without ServeMux's {$}.
func Routes(exec *idem.Executor, scope idem.ScopeFunc, opts []HandlerOption, bindings ...Binding) ([]Route, error) {
	routes := make([]Route, 0, len(bindings))
	for _, b := range bindings {
		h, err := b.handler(exec, scope, opts)
		if err != nil {
			return nil, err
		}
		pattern, served := b.mount(h)
		method, path, _ := strings.Cut(pattern, " ")
		routes = append(routes, Route{Method: method, Path: strings.TrimSuffix(path, "{$}"), Handler: served, pattern: pattern})
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
