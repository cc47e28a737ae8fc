package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// ParseKey parses an Idempotency-Key header field value in either form a
// client writes it (idemkey.Parse); errors wrap ErrKeyMalformed.
func ParseKey(value string, maxLen int) (string, error) { return idemkey.Parse(value, maxLen) }

// keyFromHeader returns the key in header name, "" when absent. A field
// sent on several lines is malformed.
func keyFromHeader(h http.Header, spec KeySpec) (string, error) {
	values := h.Values(spec.Header)
	switch len(values) {
	case 0:
		return "", nil
	case 1:
		return ParseKey(values[0], spec.MaxLength)
	default:
		return "", fmt.Errorf("%w: %d %s fields", ErrKeyMalformed, len(values), spec.Header)
	}
}

// keyFromBody returns the string at the JSON pointer in body, "" when the
// member is absent. Anything but a string there is malformed.
func keyFromBody(body []byte, spec KeySpec) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("%w: body is not JSON: %v", ErrKeyMalformed, err)
	}
	v, ok := lookupPointer(doc, spec.BodyPointer)
	if !ok {
		return "", nil
	}
	s, isString := v.(string)
	if !isString {
		return "", fmt.Errorf("%w: %s is not a string", ErrKeyMalformed, spec.BodyPointer)
	}
	if err := idemkey.Check(spec.BodyPointer, s, spec.MaxLength); err != nil {
		return "", err
	}
	return s, nil
}

// lookupPointer resolves an RFC 6901 JSON pointer, which Normalize
// checked, in a decoded document.
func lookupPointer(doc any, pointer string) (any, bool) {
	cur := doc
	for rest := pointer; rest != ""; {
		var tok string
		tok, rest = jsonpointer.Next(rest)
		switch node := cur.(type) {
		case map[string]any:
			next, ok := node[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// MessageKey returns the key of a broker message at spec.BodyPointer in
// body: a string member, or an integer member's decimal digits. A body
// that is not JSON or lacks the member is an error wrapping ErrKeyMissing;
// another type, or a key idemkey.Check refuses, one wrapping
// ErrKeyMalformed.
func MessageKey(body []byte, spec KeySpec) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("%w: the body is not JSON, so it has no %s: %v", ErrKeyMissing, spec.BodyPointer, err)
	}
	v, ok := lookupPointer(doc, spec.BodyPointer)
	if !ok {
		return "", fmt.Errorf("%w: the body has no %s", ErrKeyMissing, spec.BodyPointer)
	}
	var key string
	switch v := v.(type) {
	case string:
		key = v
	case json.Number:
		i, err := v.Int64()
		if err != nil {
			return "", fmt.Errorf("%w: %s is %s, not an integer", ErrKeyMalformed, spec.BodyPointer, v)
		}
		key = strconv.FormatInt(i, 10)
	default:
		return "", fmt.Errorf("%w: %s is neither a string nor an integer", ErrKeyMalformed, spec.BodyPointer)
	}
	if err := idemkey.Check(spec.BodyPointer, key, spec.MaxLength); err != nil {
		return "", err
	}
	return key, nil
}
