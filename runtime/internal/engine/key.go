package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// ParseKey parses an Idempotency-Key header field value. It accepts the
// Structured Field string of RFC 8941 (`"8e03…"`, with \" and \\ escapes,
// as the IETF draft writes it) and a bare token of visible ASCII characters
// (as Stripe's clients send it). Surrounding spaces and tabs are ignored.
// Errors wrap ErrKeyMalformed; the key must be 1 to maxLen bytes long.
func ParseKey(value string, maxLen int) (string, error) {
	v := strings.Trim(value, " \t")
	var key string
	if strings.HasPrefix(v, `"`) {
		k, err := parseSFString(v)
		if err != nil {
			return "", err
		}
		key = k
	} else {
		for i := 0; i < len(v); i++ {
			if c := v[i]; c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				return "", fmt.Errorf("%w: byte %#x at %d is not allowed in a bare key", ErrKeyMalformed, c, i)
			}
		}
		key = v
	}
	if key == "" {
		return "", fmt.Errorf("%w: empty", ErrKeyMalformed)
	}
	if maxLen > 0 && len(key) > maxLen {
		return "", fmt.Errorf("%w: %d bytes, at most %d allowed", ErrKeyMalformed, len(key), maxLen)
	}
	return key, nil
}

// parseSFString parses an RFC 8941 sf-string that must span all of v.
func parseSFString(v string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\':
			i++
			if i == len(v) || (v[i] != '"' && v[i] != '\\') {
				return "", fmt.Errorf("%w: bad escape in string at %d", ErrKeyMalformed, i)
			}
			b.WriteByte(v[i])
		case c == '"':
			if i != len(v)-1 {
				return "", fmt.Errorf("%w: text after the closing quote", ErrKeyMalformed)
			}
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", fmt.Errorf("%w: byte %#x at %d is not allowed in a string", ErrKeyMalformed, c, i)
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("%w: unterminated string", ErrKeyMalformed)
}

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
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrKeyMalformed)
	}
	if len(s) > spec.MaxLength {
		return "", fmt.Errorf("%w: %d bytes, at most %d allowed", ErrKeyMalformed, len(s), spec.MaxLength)
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
