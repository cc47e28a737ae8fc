package idemimpl

import "github.com/idemgen/idemgen/runtime/internal/httpapi"

// ParamScalar is the Go type of a scalar parameter or response header.
type ParamScalar = httpapi.ParamScalar

// Param decodes the parameter name in in (path, query, header or cookie) of r into
// *dst; a missing one is
// an error when required and leaves *dst alone otherwise. Errors wrap
// ErrInvalidBody and name the parameter.
func Param[T ParamScalar](r *Request, in, name string, required bool, dst *T) error {
	return httpapi.Param(r, in, name, required, dst)
}

// OptionalParam decodes an optional parameter into *dst, which stays nil
// when the request has none.
func OptionalParam[T ParamScalar](r *Request, in, name string, dst **T) error {
	return httpapi.OptionalParam(r, in, name, dst)
}

// ParamList decodes a list parameter into *dst: a repeated query
// parameter, or comma-separated values.
func ParamList[T ParamScalar](r *Request, in, name string, required bool, dst *[]T) error {
	return httpapi.ParamList(r, in, name, required, dst)
}

// FormatParam renders a scalar as the text of a response header.
func FormatParam[T ParamScalar](v T) string { return httpapi.FormatParam(v) }

// FormatParamList renders a list as the comma-separated text of a response
// header.
func FormatParamList[T ParamScalar](v []T) string { return httpapi.FormatParamList(v) }
