package idemtest

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// muxRoute is how RunContract serves a contract's route on an
// http.ServeMux: the pattern to register and how the handler reads the
// path parameters.
type muxRoute struct {
	pattern string
	param   idemimpl.PathParamFunc // nil: (*http.Request).PathValue
}

// options returns the handler options that read the route's parameters.
func (m muxRoute) options() []idemimpl.HandlerOption {
	if m.param == nil {
		return nil
	}
	return []idemimpl.HandlerOption{idemimpl.WithPathParams(m.param)}
}

// newMuxRoute returns the route of method and tmpl. A template the
// standard mux accepts as it is (each parameter a whole segment named like
// a Go identifier) is registered as it is and read with PathValue, as
// generated Routes do. Any other, such as /calls/{Sid}.json or
// /orders/{order-id}, is registered with one anonymous wildcard per
// templated segment, and its parameters are read by matching the template
// against the escaped request path.
func newMuxRoute(method, tmpl string) (muxRoute, error) {
	pattern := method + " " + tmpl
	if validPattern(pattern) {
		return muxRoute{pattern: pattern}, nil
	}
	segs := strings.Split(tmpl, "/")
	var re strings.Builder
	re.WriteString("^")
	var names []string
	for i, seg := range segs {
		if i > 0 {
			re.WriteByte('/')
		}
		if !strings.Contains(seg, "{") {
			re.WriteString(regexp.QuoteMeta(seg))
			continue
		}
		segs[i] = fmt.Sprintf("{idemtest%d}", i)
		for seg != "" {
			open := strings.IndexByte(seg, '{')
			if open < 0 {
				re.WriteString(regexp.QuoteMeta(seg))
				break
			}
			end := strings.IndexByte(seg[open:], '}')
			if end < 0 {
				return muxRoute{}, fmt.Errorf("route %q: unclosed {", tmpl)
			}
			re.WriteString(regexp.QuoteMeta(seg[:open]))
			re.WriteString("([^/]+)")
			names = append(names, seg[open+1:open+end])
			seg = seg[open+end+1:]
		}
	}
	re.WriteString("$")
	match, err := regexp.Compile(re.String())
	if err != nil {
		return muxRoute{}, fmt.Errorf("route %q: %v", tmpl, err)
	}
	pattern = method + " " + strings.Join(segs, "/")
	if !validPattern(pattern) {
		return muxRoute{}, fmt.Errorf("route %q: http.ServeMux rejects %q", tmpl, pattern)
	}
	param := func(r *http.Request, name string) string {
		m := match.FindStringSubmatch(r.URL.EscapedPath())
		for i, n := range names {
			if n == name && m != nil {
				v, err := url.PathUnescape(m[i+1])
				if err != nil {
					return ""
				}
				return v
			}
		}
		return ""
	}
	return muxRoute{pattern: pattern, param: param}, nil
}

// validPattern reports whether http.ServeMux accepts pattern.
func validPattern(pattern string) bool {
	return handle(http.NewServeMux(), pattern, http.NotFoundHandler()) == nil
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
