package idemkey

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Check says whether key, however it arrived (a body member, a webhook-id,
// a broker's message id), can name a request or a message: 1 to maxLen
// bytes (maxLen 0 sets no upper bound) of valid UTF-8 without control
// characters, which a log line, a support screen or PostgreSQL's text
// (no NUL) could not carry as sent. Errors wrap ErrMalformed and say
// where the key was (name: a JSON pointer, a header) and what is wrong
// with it, never the key itself.
func Check(name, key string, maxLen int) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: %s is empty", ErrMalformed, name)
	case maxLen > 0 && len(key) > maxLen:
		return fmt.Errorf("%w: %s of %d bytes, at most %d allowed", ErrMalformed, name, len(key), maxLen)
	}
	for i, r := range key {
		switch {
		case r == utf8.RuneError && !validAt(key, i):
			return fmt.Errorf("%w: %s is not UTF-8 at byte %d", ErrMalformed, name, i)
		case unicode.IsControl(r):
			return fmt.Errorf("%w: %s holds the control character %U at byte %d", ErrMalformed, name, r, i)
		}
	}
	return nil
}

// validAt says whether the U+FFFD at byte i of s was written as such
// rather than decoded from an invalid byte.
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3
}
