package jsondecode

import (
	"strconv"
	"strings"
)

// Violation is one way a request breaks its schema: where (a JSON pointer
// into the body, RFC 6901) and why, in words a client developer can act
// on.
type Violation struct {
	Pointer string `json:"pointer"`
	Reason  string `json:"reason"`
}

// Error lists every violation of one body, in the order they were found.
type Error struct {
	Violations []Violation
}

// Error words the violations on one line, at most three of them.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("request body invalid: ")
	for i, v := range e.Violations {
		if i == 3 {
			b.WriteString("; … and " + strconv.Itoa(len(e.Violations)-3) + " more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		p := v.Pointer
		if p == "" {
			p = "(body)"
		}
		b.WriteString(p + ": " + v.Reason)
	}
	return b.String()
}
