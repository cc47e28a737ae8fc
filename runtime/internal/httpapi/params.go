package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/jsondecode"
)

// ParamScalar is the Go type of a scalar parameter or response header.
type ParamScalar interface {
	string | int32 | int64 | float64 | bool | time.Time
}

// The places a parameter is in.
const (
	InPath   = "path"
	InQuery  = "query"
	InHeader = "header"
	InCookie = "cookie"
)

// values returns the raw values of the parameter name in in; nil when the
// request has none.
func (r *Request) values(in, name string) []string {
	switch in {
	case InPath:
		if v, ok := r.PathParams[name]; ok && v != "" {
			return []string{v}
		}
	case InQuery:
		return r.Query[name]
	case InHeader:
		return r.Header.Values(name)
	case InCookie:
		var out []string
		for _, line := range r.Header.Values("Cookie") {
			cookies, _ := http.ParseCookie(line) // a malformed line holds no parameter
			for _, c := range cookies {
				if c.Name == name {
					out = append(out, c.Value)
				}
			}
		}
		return out
	}
	return nil
}

// Param decodes the parameter name in in of r into *dst; a missing one is
// an error when required and leaves *dst alone otherwise, and one sent
// more than once is an error: which of its values the client meant is
// not for the server to guess (a proxy and the service could pick
// different ones). Errors wrap ErrInvalidBody and name the parameter.
func Param[T ParamScalar](r *Request, in, name string, required bool, dst *T) error {
	raw := r.values(in, name)
	switch {
	case len(raw) == 0:
		if required {
			return fmt.Errorf("%w: %s parameter %s is required", ErrInvalidBody, in, name)
		}
		return nil
	case len(raw) > 1:
		return fmt.Errorf("%w: %s parameter %s is sent %d times: it takes one value, send it once", ErrInvalidBody, in, name, len(raw))
	}
	if err := parseScalar(raw[0], dst); err != nil {
		return fmt.Errorf("%w: %s parameter %s: %v", ErrInvalidBody, in, name, err)
	}
	return nil
}

// OptionalParam decodes an optional parameter into *dst, which stays nil
// when the request has none.
func OptionalParam[T ParamScalar](r *Request, in, name string, dst **T) error {
	if len(r.values(in, name)) == 0 {
		return nil
	}
	v := new(T)
	if err := Param(r, in, name, true, v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// ParamList decodes a list parameter into *dst: a repeated query
// parameter, or comma-separated values (the simple and form styles).
func ParamList[T ParamScalar](r *Request, in, name string, required bool, dst *[]T) error {
	raw := r.values(in, name)
	if len(raw) == 0 {
		if required {
			return fmt.Errorf("%w: %s parameter %s is required", ErrInvalidBody, in, name)
		}
		return nil
	}
	var items []string
	for _, v := range raw {
		items = append(items, strings.Split(v, ",")...)
	}
	out := make([]T, len(items))
	for i, item := range items {
		if err := parseScalar(item, &out[i]); err != nil {
			return fmt.Errorf("%w: %s parameter %s: item %d: %v", ErrInvalidBody, in, name, i, err)
		}
	}
	*dst = out
	return nil
}

// parseScalar decodes the text of one scalar into *dst.
func parseScalar[T ParamScalar](s string, dst *T) error {
	var err error
	switch p := any(dst).(type) {
	case *string:
		*p = s
	case *int32:
		var n int64
		n, err = strconv.ParseInt(s, 10, 32)
		*p = int32(n)
	case *int64:
		*p, err = strconv.ParseInt(s, 10, 64)
	case *float64:
		*p, err = strconv.ParseFloat(s, 64)
	case *bool:
		*p, err = strconv.ParseBool(s)
	case *time.Time:
		var ok bool
		if *p, ok = jsondecode.ParseDateTime(s); !ok {
			err = errors.New("not an RFC 3339 date-time")
		}
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid %T", s, *dst)
	}
	return nil
}

// FormatParam renders a scalar as the text of a header.
func FormatParam[T ParamScalar](v T) string {
	switch x := any(v).(type) {
	case string:
		return x
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	panic("unreachable")
}

// FormatParamList renders a list as the comma-separated text of a header.
func FormatParamList[T ParamScalar](v []T) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = FormatParam(x)
	}
	return strings.Join(parts, ",")
}
