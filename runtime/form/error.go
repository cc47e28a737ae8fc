package form

import (
	"errors"
	"strings"
)

// Error is a form body that does not fit the type it is decoded into, or a
// key that cannot be parsed. Key is the key as a client writes it, such as
// items[0][qty]; empty for the form as a whole.
type Error struct {
	Key string
	Msg string
}

// Error formats the error as "form: key: message".
func (e *Error) Error() string {
	if e.Key == "" {
		return "form: " + e.Msg
	}
	return "form: " + e.Key + ": " + e.Msg
}

// Pointer is the JSON pointer (RFC 6901) of the value Key names, as the
// same body sent as JSON would place it: items[0][qty] is /items/0/qty,
// expand[] is /expand; "" for the form as a whole or a key that cannot be
// split.
func (e *Error) Pointer() string {
	if e.Key == "" {
		return ""
	}
	segs, err := splitKey(e.Key)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, s := range segs {
		if s == "" {
			break
		}
		b.WriteByte('/')
		pointerEscaper.WriteString(&b, s)
	}
	return b.String()
}

// pointerEscaper escapes a pointer token (RFC 6901).
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Failures calls report with the pointer and reason (see Locate) of each
// failure err, returned by Decode, holds: a generated DecodeForm joins the
// failures of every key that does not fit (errors.Join), its nested
// objects' included, and Failures reports them in that order.
func Failures(err error, report func(pointer, reason string)) {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			Failures(e, report)
		}
		return
	}
	report(Locate(err))
}

// Locate returns where err, returned by Decode, puts the failure (the
// JSON pointer of its key, see Error.Pointer) and the reason in words, for
// a list of violations.
func Locate(err error) (pointer, reason string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Pointer(), e.Msg
	}
	return "", err.Error()
}
