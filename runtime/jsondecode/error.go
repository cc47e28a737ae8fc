package jsondecode

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Violation is one way a request breaks its schema: where (a JSON pointer
// into the body, RFC 6901, or a parameter) and why, in words a client
// developer can act on.
type Violation struct {
	// Pointer locates the value in the body; "" is the body as a whole.
	Pointer string
	// In and Parameter name a path, query or header parameter instead.
	In, Parameter string
	Reason        string
}

// MarshalJSON writes {"pointer", "reason"} for the body and {"in",
// "parameter", "reason"} for a parameter.
func (v Violation) MarshalJSON() ([]byte, error) {
	if v.Parameter != "" {
		return json.Marshal(struct {
			In        string `json:"in"`
			Parameter string `json:"parameter"`
			Reason    string `json:"reason"`
		}{v.In, v.Parameter, v.Reason})
	}
	return json.Marshal(struct {
		Pointer string `json:"pointer"`
		Reason  string `json:"reason"`
	}{v.Pointer, v.Reason})
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
		switch {
		case v.Parameter != "":
			p = v.In + " parameter " + v.Parameter
		case p == "":
			p = "(body)"
		}
		b.WriteString(p + ": " + v.Reason)
	}
	return b.String()
}
