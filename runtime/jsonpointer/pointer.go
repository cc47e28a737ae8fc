package jsonpointer

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrSyntax is wrapped by every error Check returns.
var ErrSyntax = errors.New("invalid JSON pointer")

// Check reports whether p is an RFC 6901 JSON pointer: empty (the whole
// document) or a sequence of /-prefixed tokens in valid UTF-8 whose only
// escapes are ~0 and ~1.
func Check(p string) error {
	if p == "" {
		return nil
	}
	if p[0] != '/' {
		return fmt.Errorf("%w: %q does not start with '/'", ErrSyntax, p)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrSyntax, p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return fmt.Errorf("%w: %q has an escape other than ~0 or ~1", ErrSyntax, p)
		}
	}
	return nil
}

// Next splits the first token, unescaped, off a non-empty pointer that
// Check accepts: Next("/a~1b/c") is "a/b" and "/c".
func Next(p string) (token, rest string) {
	p = p[1:]
	token, rest = p, ""
	if i := strings.IndexByte(p, '/'); i >= 0 {
		token, rest = p[:i], p[i:]
	}
	return Unescape(token), rest
}

// Split returns the unescaped tokens of a pointer that Check accepts; the
// empty pointer has none.
func Split(p string) []string {
	var tokens []string
	for p != "" {
		var t string
		t, p = Next(p)
		tokens = append(tokens, t)
	}
	return tokens
}

// Parse checks p and returns its unescaped tokens.
func Parse(p string) ([]string, error) {
	if err := Check(p); err != nil {
		return nil, err
	}
	return Split(p), nil
}

// Join builds the pointer of the given unescaped tokens.
func Join(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// unescaper undoes the ~1 and ~0 escapes of a token, in that order.
var unescaper = strings.NewReplacer("~1", "/", "~0", "~")

// escaper applies the ~0 and ~1 escapes to a token.
var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// Unescape undoes the escapes of one token: "a~1b~0c" is "a/b~c".
func Unescape(token string) string {
	if strings.IndexByte(token, '~') < 0 {
		return token
	}
	return unescaper.Replace(token)
}

// Escape escapes one token for a pointer: "a/b~c" is "a~1b~0c".
func Escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return escaper.Replace(token)
}
