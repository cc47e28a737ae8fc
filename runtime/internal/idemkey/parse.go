package idemkey

import (
	"errors"
	"fmt"
	"strings"
)

// ErrMalformed is wrapped by Parse's errors: the key is empty, too long or
// not in either accepted form. runtime/idem re-exports it as
// ErrKeyMalformed.
var ErrMalformed = errors.New("idem: idempotency key malformed")

// Parse parses an Idempotency-Key header field value. It accepts the
// Structured Field string of RFC 8941 (`"8e03…"`, with \" and \\ escapes,
// as the IETF draft writes it) and a bare token of visible ASCII characters
// (as Stripe's clients send it). Surrounding spaces and tabs are ignored.
// Errors wrap ErrMalformed; the key must be 1 to maxLen bytes long (maxLen
// 0 sets no upper bound).
func Parse(value string, maxLen int) (string, error) {
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
				return "", fmt.Errorf("%w: byte %#x at %d is not allowed in a bare key", ErrMalformed, c, i)
			}
		}
		key = v
	}
	if key == "" {
		return "", fmt.Errorf("%w: empty", ErrMalformed)
	}
	if maxLen > 0 && len(key) > maxLen {
		return "", fmt.Errorf("%w: %d bytes, at most %d allowed", ErrMalformed, len(key), maxLen)
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
				return "", fmt.Errorf("%w: bad escape in string at %d", ErrMalformed, i)
			}
			b.WriteByte(v[i])
		case c == '"':
			if i != len(v)-1 {
				return "", fmt.Errorf("%w: text after the closing quote", ErrMalformed)
			}
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", fmt.Errorf("%w: byte %#x at %d is not allowed in a string", ErrMalformed, c, i)
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("%w: unterminated string", ErrMalformed)
}
