package idemtest

import (
	"fmt"
	"net/http"

	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// mountOn returns a ServeMux serving h as the service serves it: through
// mount, the generated function Routes and Register use, which gives the
// pattern and wraps h where the generator took the path apart; without
// one (a case written by hand), at the contract's method and route as they
// are.
func mountOn(mount func(http.Handler) (string, http.Handler), c idemimpl.Contract, h http.Handler) (*http.ServeMux, error) {
	pattern, served := c.Method+" "+c.Route, h
	if mount != nil {
		pattern, served = mount(h)
	}
	mux := http.NewServeMux()
	if err := handle(mux, pattern, served); err != nil {
		return nil, fmt.Errorf("routing %s %s on http.ServeMux at %q: %v", c.Method, c.Route, pattern, err)
	}
	return mux, nil
}

// handle registers h at pattern, turning the panic of an invalid pattern
// into an error.
func handle(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%v", v)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}
