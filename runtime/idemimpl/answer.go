package idemimpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/idemgen/idemgen/runtime/idem"
)

// Answer is one documented answer of a generated operation as its response
// type describes it: the status, the body and the typed headers. Each
// generated response type returns one; Respond renders it for the runtime,
// which stores and replays it as the contract says.
type Answer struct {
	// Status is the status to answer with: the documented one, or, for a
	// range (4XX) or default answer, the one the service set.
	Status int
	// Class is the class a range answer's Status must be in (4 for 4XX); 0
	// for an exact or default answer. Any Status must be from 100 to 599.
	Class int
	// Body is the answer's body; the zero Body is none.
	Body Body
	// Headers are the typed headers the answer documents, in order; they
	// are stored and replayed with it.
	Headers []AnswerHeader
}

// Body is the body of an Answer and its media type, sent as Content-Type.
// It is a pointer, so that an Answer stays small: each generated response
// type builds one, and a value method's answer is copied to its caller
// and through its pointer wrapper.
type Body struct{ b *body }

// body is a Body's content: value is encoded as JSON when encode is set;
// raw is sent as it is otherwise.
type body struct {
	contentType string
	value       any
	encode      bool
	raw         []byte
}

// JSONBody is the body v, encoded with encoding/json, of media type
// contentType (application/json, or a +json type the spec names).
//
//go:noinline
func JSONBody(contentType string, v any) Body {
	return Body{&body{contentType: contentType, value: v, encode: true}}
}

// RawBody is the body b, sent as it is, of media type contentType.
//
//go:noinline
func RawBody(contentType string, b []byte) Body {
	return Body{&body{contentType: contentType, raw: b}}
}

// AnswerHeader is one typed header of an Answer: its name and, when it is
// sent, its text.
type AnswerHeader struct {
	name  string
	value string
	sent  bool
}

// Header is the required header name with the value v.
func Header[T ParamScalar](name string, v T) AnswerHeader {
	return AnswerHeader{name: name, value: FormatParam(v), sent: true}
}

// OptionalHeader is the optional header name, sent with *v unless v is
// nil.
func OptionalHeader[T ParamScalar](name string, v *T) AnswerHeader {
	if v == nil {
		return AnswerHeader{name: name}
	}
	return Header(name, *v)
}

// ListHeader is the header name with the comma-separated values v, sent
// unless v is empty.
func ListHeader[T ParamScalar](name string, v []T) AnswerHeader {
	if len(v) == 0 {
		return AnswerHeader{name: name}
	}
	return AnswerHeader{name: name, value: FormatParamList(v), sent: true}
}

// Render returns the runtime's Response of a: its status, Content-Type and
// body, and its typed headers, which Response.Typed names whether or not
// they are sent. A status outside the answer's range is an error.
func (a Answer) Render() (*Response, error) {
	switch {
	case a.Status < 100 || a.Status > 599:
		return nil, fmt.Errorf("status %d is not a status from 100 to 599", a.Status)
	case a.Class != 0 && a.Status/100 != a.Class:
		return nil, fmt.Errorf("status %d is not %dxx", a.Status, a.Class)
	}
	res := &Response{Status: a.Status, Header: http.Header{}}
	if b := a.Body.b; b != nil {
		res.Body = b.raw
		if b.encode {
			v, err := json.Marshal(b.value)
			if err != nil {
				return nil, err
			}
			res.Body = v
		}
		if b.contentType != "" {
			res.Header.Set("Content-Type", b.contentType)
		}
	}
	for _, h := range a.Headers {
		res.Typed = append(res.Typed, h.name)
		if h.sent {
			res.Header.Set(h.name, h.value)
		}
	}
	return res, nil
}

// Respond is the end of a generated operation's Run: the business method
// returned res and err. An error goes back to the executor as it is; a nil
// answer is an error; any other answer is rendered by render, the
// generated response interface's method, and Render. op names the
// operation in the errors.
func Respond[R any](op *Operation, res R, err error, render func(R) Answer) (*Response, error) {
	switch {
	case err != nil:
		return nil, err
	case any(res) == nil:
		return nil, noAnswer(op)
	}
	a := render(res)
	return a.respond(op)
}

// respond is the rest of Respond once the answer is rendered, kept out of
// line so that it is compiled once, not in each of Respond's instances
// (one per operation's response interface).
//
//go:noinline
func (a *Answer) respond(op *Operation) (*Response, error) {
	out, err := a.Render()
	if err != nil {
		return nil, renderError(op, err)
	}
	return out, nil
}

// opName names op in Respond's errors.
func opName(op *Operation) string {
	if op == nil {
		return "the operation"
	}
	return op.Name
}

// noAnswer is Respond's error for a nil answer, kept out of Respond's
// per-type instances.
//
//go:noinline
func noAnswer(op *Operation) error {
	return errors.New(opName(op) + " returned no answer")
}

// renderError is Respond's error for an answer that does not render,
// kept out of Respond's per-type instances.
func renderError(op *Operation, err error) error {
	return fmt.Errorf("%s: %w", opName(op), err)
}

// NotImplemented is the answer of an operation the service has not
// implemented: a 501 application/problem+json refusal, never stored. what
// names the operation: operationId (METHOD /path). It is kept out of
// line: each generated operation's default business method calls it.
//
//go:noinline
func NotImplemented(what string) error {
	return &idem.Rejection{Status: http.StatusNotImplemented, Title: "Not Implemented", Detail: what + " is not implemented."}
}
