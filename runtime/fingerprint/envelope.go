package fingerprint

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// SumCanonical returns the fingerprint of a request whose body part is
// already canonical JSON, as a [Writer] produces it: the whole body, or the
// include object described in the package documentation. A nil or empty body
// means none. It is what [Spec.Sum] computes after selecting the body, and
// what generated typed fingerprints call. The body is not checked: bytes
// that are not canonical JSON give a fingerprint no generic request matches.
func SumCanonical(method, route string, params map[string]string, body []byte) (Sum, error) {
	if !utf8.ValidString(method) {
		// Checked before upper-casing, which would turn invalid bytes into
		// U+FFFD and make different methods collide.
		return Sum{}, fmt.Errorf("%w: method %q is not valid UTF-8", ErrInvalidValue, method)
	}
	w := getWriter()
	defer putWriter(w)
	w.BeginObject()
	if len(body) > 0 {
		w.Key("body")
		w.raw(body)
	}
	w.Key("method")
	w.String(strings.ToUpper(method))
	w.Key("params")
	w.BeginObject()
	var buf [8]string
	names := buf[:0]
	for k := range params {
		names = append(names, k)
	}
	slices.SortFunc(names, compareUTF16[string, string])
	for _, k := range names {
		w.Key(k)
		w.String(params[k])
	}
	w.EndObject()
	w.Key("route")
	w.String(route)
	w.Key("v")
	w.Int(1)
	w.EndObject()
	b, err := w.Result()
	if err != nil {
		return Sum{}, err
	}
	return sha256.Sum256(b), nil
}

// SumWith returns the fingerprint of a request whose body part write renders
// with a pooled [Writer], as [SumCanonical] would hash it; a nil write, or one
// that writes nothing, means no body. Generated typed fingerprints call it
// with a function that walks the typed request. The Writer belongs to
// SumWith: write must not keep it.
func SumWith(method, route string, params map[string]string, write func(*Writer)) (Sum, error) {
	if write == nil {
		return SumCanonical(method, route, params, nil)
	}
	w := getWriter()
	defer putWriter(w)
	write(w)
	if w.err == nil && !w.done && len(w.frames) == 0 {
		return SumCanonical(method, route, params, nil)
	}
	body, err := w.Result()
	if err != nil {
		return Sum{}, err
	}
	return SumCanonical(method, route, params, body)
}
