package httpapi

import (
	"errors"
	"testing"
)

// MessageKey reads a broker message's key from its body: a string as it
// is, an integer as its decimal digits; anything else fails, missing or
// malformed.
func TestMessageKey(t *testing.T) {
	spec := KeySpec{BodyPointer: "/payment/id", MaxLength: 8}
	for _, tc := range []struct {
		body, want string
		err        error
	}{
		{`{"payment": {"id": "p-17"}}`, "p-17", nil},
		{`{"payment": {"id": 17}}`, "17", nil},
		{`{"payment": {"id": -3}}`, "-3", nil},
		{`{"payment": {}}`, "", ErrKeyMissing},
		{`not json`, "", ErrKeyMissing},
		{`{"payment": {"id": 1.5}}`, "", ErrKeyMalformed},
		{`{"payment": {"id": true}}`, "", ErrKeyMalformed},
		{`{"payment": {"id": ""}}`, "", ErrKeyMalformed},
		{`{"payment": {"id": "123456789"}}`, "", ErrKeyMalformed},
	} {
		got, err := MessageKey([]byte(tc.body), spec)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("MessageKey(%s) = %q, %v; want %q, %v", tc.body, got, err, tc.want, tc.err)
		}
	}
}
