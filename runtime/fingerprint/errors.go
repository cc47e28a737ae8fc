package fingerprint

import "errors"

// ErrInvalidJSON is wrapped by every error about a JSON text that is not
// acceptable I-JSON: a syntax error, a duplicate member name, invalid UTF-8,
// a lone surrogate, a number outside the range of a double, or nesting deeper
// than the package limit.
var ErrInvalidJSON = errors.New("fingerprint: invalid JSON")

// ErrBodyTooLarge is wrapped by the error [Spec.Sum] returns for a body longer
// than the limit (see [MaxBodySize] and [Spec.MaxBodySize]).
var ErrBodyTooLarge = errors.New("fingerprint: body too large")

// ErrInvalidSpec is wrapped by errors about a malformed [Spec]: a JSON pointer
// that does not start with "/" or is not valid UTF-8, a "~" escape other than
// ~0 or ~1, or a wildcard in an include pointer.
var ErrInvalidSpec = errors.New("fingerprint: invalid spec")

// ErrInvalidValue is wrapped by errors about a value that has no canonical
// JSON form: text that is not valid UTF-8, or a NaN or infinite float, given
// to a [Writer] or found in a [Request]'s method, route or path parameters.
var ErrInvalidValue = errors.New("fingerprint: invalid value")
