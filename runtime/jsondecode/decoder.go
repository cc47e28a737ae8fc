package jsondecode

import (
	"bytes"
	"strconv"
	"sync"

	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// maxDepth bounds the nesting of arrays and objects, as runtime/fingerprint
// does, so that every body a decoder accepts also fingerprints.
const maxDepth = 1000

// maxViolations bounds how many violations one body collects, so that a
// hostile body cannot make the answer larger than itself.
const maxViolations = 100

// frame is an open array or object.
type frame struct {
	object bool
	// first is set until the first member or element is read.
	first bool
	// index is the current element of an array.
	index int
	// key is the current member's name in Decoder.names; keys is where
	// this object's names start in Decoder.keys.
	key  span
	keys int
	// many holds the names of an object with more than a few members.
	many map[string]struct{}
}

type span struct{ off, n int }

// Decoder reads one JSON text and collects the violations of its schema.
// Generated decoders get one from [New] and return it with [Decoder.Finish].
type Decoder struct {
	src   []byte
	pos   int
	stack []frame
	names []byte // decoded member names of the open objects
	keys  []span // per open object, its names so far
	buf   []byte // the string being decoded
	// syntax is the first malformed-JSON error; decoding stops there.
	syntax     *Violation
	violations []Violation
	dropped    int
	// bad is set when the current value could not be read as its type,
	// so that the checks of its schema keywords stay silent.
	bad bool
	// param is the parameter being checked, nil for the body.
	param *param
	// rereading is set while a union reads a value again that the
	// decoder has already checked for duplicate members, which it then
	// does not track. trial is set while a union tries its branches:
	// violations only set failed, since the union reports them as one.
	rereading, trial, failed bool
}

var decoders = sync.Pool{New: func() any { return new(Decoder) }}

// New returns a decoder of src, which must stay unchanged until Finish.
func New(src []byte) *Decoder {
	d := decoders.Get().(*Decoder)
	d.src, d.pos = src, 0
	d.stack, d.names, d.keys, d.buf = d.stack[:0], d.names[:0], d.keys[:0], d.buf[:0]
	d.syntax, d.violations, d.dropped, d.param, d.bad = nil, nil, 0, nil, false
	d.rereading, d.trial, d.failed = false, false, false
	d.space()
	if d.pos == len(d.src) {
		d.fail("empty body, want a JSON value")
	} else if bytes.HasPrefix(d.src, []byte("\xef\xbb\xbf")) {
		d.fail("byte order mark before the JSON text")
	}
	return d
}

// Finish checks that nothing but white space follows the value, returns
// the decoder to its pool and reports every violation as an *Error (nil
// when there is none). The decoder must not be used afterwards.
func (d *Decoder) Finish() error {
	if d.syntax == nil {
		d.space()
		if d.pos < len(d.src) {
			d.fail("text after the JSON value")
		}
	}
	var err error
	switch {
	case d.syntax != nil:
		err = &Error{Violations: append(d.violations, *d.syntax)}
	case len(d.violations) > 0:
		v := d.violations
		if d.dropped > 0 {
			v = append(v, Violation{Reason: "… and " + strconv.Itoa(d.dropped) + " more violations"})
		}
		err = &Error{Violations: v}
	}
	d.src, d.violations, d.syntax = nil, nil, nil
	if cap(d.buf) <= 1<<16 && cap(d.names) <= 1<<16 {
		decoders.Put(d)
	}
	return err
}

// Failed reports whether decoding stopped at malformed JSON; the values
// read since are zero.
func (d *Decoder) Failed() bool { return d.syntax != nil }

// Violate reports a violation at the current value: the member or element
// just read, or the container just closed.
func (d *Decoder) Violate(reason string) {
	if d.param != nil {
		d.violateParam(reason)
		return
	}
	if d.syntax != nil || d.tried() {
		return
	}
	if len(d.violations) >= maxViolations {
		d.dropped++
		return
	}
	d.violations = append(d.violations, Violation{Pointer: d.pointer(""), Reason: reason})
}

// violateParam reports a violation of the current parameter; a body that
// is not JSON does not silence it.
func (d *Decoder) violateParam(reason string) {
	if len(d.violations) >= maxViolations {
		d.dropped++
		return
	}
	d.violations = append(d.violations, Violation{In: d.param.in, Parameter: d.param.name, Reason: reason})
}

// Missing reports a required member that the object just closed lacks.
func (d *Decoder) Missing(name string) {
	if d.syntax != nil || d.tried() {
		return
	}
	if len(d.violations) >= maxViolations {
		d.dropped++
		return
	}
	d.violations = append(d.violations, Violation{Pointer: d.pointer(name), Reason: "is required"})
}

// tried reports whether a union is trying its branches, and if so records
// that the current one failed.
func (d *Decoder) tried() bool {
	if d.trial {
		d.failed = true
	}
	return d.trial
}

// pointer is the JSON pointer of the current value, with name appended
// when it is not empty.
func (d *Decoder) pointer(name string) string {
	var b []byte
	for i := range d.stack {
		f := &d.stack[i]
		if f.first {
			continue
		}
		b = append(b, '/')
		if f.object {
			b = append(b, jsonpointer.Escape(string(d.names[f.key.off:f.key.off+f.key.n]))...)
		} else {
			b = strconv.AppendInt(b, int64(f.index), 10)
		}
	}
	if name != "" {
		b = append(b, '/')
		b = append(b, jsonpointer.Escape(name)...)
	}
	return string(b)
}

// fail records malformed JSON at the current offset and stops decoding.
func (d *Decoder) fail(what string) {
	if d.syntax != nil {
		return
	}
	d.syntax = &Violation{Pointer: d.pointer(""), Reason: "invalid JSON at offset " + strconv.Itoa(d.pos) + ": " + what}
	d.pos = len(d.src)
}

func (d *Decoder) space() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the first byte of the next value, 0 at the end or after a
// syntax error.
func (d *Decoder) peek() byte {
	d.space()
	if d.pos >= len(d.src) || d.syntax != nil {
		return 0
	}
	return d.src[d.pos]
}

// IsNull consumes a null and reports true when the next value is one.
func (d *Decoder) IsNull() bool {
	if d.peek() != 'n' {
		return false
	}
	d.literal("null")
	return true
}

// refuse reports that the current value cannot be read as its type.
func (d *Decoder) refuse(reason string) {
	d.Violate(reason)
	d.bad = true
}

// wrongType reports that the next value is not of the wanted kind and
// skips it.
func (d *Decoder) wrongType(want string) {
	if d.peek() == 'n' {
		d.literal("null")
		d.refuse("must not be null")
		return
	}
	d.Skip()
	d.refuse("must be " + want)
}

// BeginObject starts reading an object; it reports false, having reported
// and skipped the value, when the next value is not one. Read its members
// with Member until it reports false.
func (d *Decoder) BeginObject() bool {
	if d.peek() != '{' {
		d.wrongType("an object")
		return false
	}
	return d.open(true)
}

// BeginArray starts reading an array, as BeginObject does an object; read
// its elements with Next until it reports false.
func (d *Decoder) BeginArray() bool {
	if d.peek() != '[' {
		d.wrongType("an array")
		return false
	}
	return d.open(false)
}

func (d *Decoder) open(object bool) bool {
	if len(d.stack) >= maxDepth {
		d.fail("nested deeper than " + strconv.Itoa(maxDepth) + " levels")
		return false
	}
	d.pos++
	d.stack = append(d.stack, frame{object: object, first: true, keys: len(d.keys), index: -1})
	return true
}

// close pops the innermost container; its names go with it.
func (d *Decoder) close() {
	f := &d.stack[len(d.stack)-1]
	if f.object && f.keys < len(d.keys) {
		d.names = d.names[:d.keys[f.keys].off]
		d.keys = d.keys[:f.keys]
	}
	d.stack = d.stack[:len(d.stack)-1]
	d.bad = false
}

// separator reads the comma before a member or element, or the closing
// bracket; it reports whether another item follows.
func (d *Decoder) separator(end byte) bool {
	f := &d.stack[len(d.stack)-1]
	c := d.peek()
	switch {
	case d.syntax != nil:
		d.stack = d.stack[:0]
		return false
	case c == end:
		d.pos++
		d.close()
		return false
	case f.first:
		return true
	case c == ',':
		d.pos++
		if d.peek() == end {
			d.fail("trailing comma")
			d.stack = d.stack[:0]
			return false
		}
		return true
	}
	d.fail("want ',' or '" + string(end) + "'")
	d.stack = d.stack[:0]
	return false
}

// Next moves to the next element of the array being read; false at its
// end.
func (d *Decoder) Next() bool {
	if len(d.stack) == 0 {
		return false
	}
	if !d.separator(']') {
		return false
	}
	f := &d.stack[len(d.stack)-1]
	f.first = false
	f.index++
	d.bad = false
	return true
}

// Member moves to the next member of the object being read; false at its
// end. The member's name is [Decoder.Key]. A member whose name the object
// already had is reported and skipped here, so callers never see it.
func (d *Decoder) Member() bool {
	for {
		if len(d.stack) == 0 || !d.separator('}') {
			return false
		}
		f := &d.stack[len(d.stack)-1]
		if d.peek() != '"' {
			d.fail("want a member name")
			d.stack = d.stack[:0]
			return false
		}
		off := len(d.names)
		if !d.scanString() {
			d.stack = d.stack[:0]
			return false
		}
		d.names = append(d.names, d.buf...)
		name := span{off, len(d.names) - off}
		if d.peek() != ':' {
			d.fail("want ':' after a member name")
			d.stack = d.stack[:0]
			return false
		}
		d.pos++
		f.first = false
		f.key = name
		d.bad = false
		if !d.rereading && d.duplicate(f, name) {
			d.Violate("member given more than once")
			d.Skip()
			continue
		}
		return true
	}
}

// duplicate reports whether the object of f already has name, recording
// it when not.
func (d *Decoder) duplicate(f *frame, name span) bool {
	text := d.names[name.off : name.off+name.n]
	if f.many != nil {
		if _, ok := f.many[string(text)]; ok {
			return true
		}
		f.many[string(text)] = struct{}{}
		return false
	}
	for _, k := range d.keys[f.keys:] {
		if bytes.Equal(d.names[k.off:k.off+k.n], text) {
			return true
		}
	}
	d.keys = append(d.keys, name)
	if len(d.keys)-f.keys > 16 {
		f.many = make(map[string]struct{}, 32)
		for _, k := range d.keys[f.keys:] {
			f.many[string(d.names[k.off:k.off+k.n])] = struct{}{}
		}
	}
	return false
}

// Key is the name of the current member, valid until the next call.
func (d *Decoder) Key() []byte {
	f := &d.stack[len(d.stack)-1]
	return d.names[f.key.off : f.key.off+f.key.n]
}

// Field returns the index of the current member's name in names, which
// must be sorted shortest first and names of one length in byte order, or
// -1 when it is none of them. Generated decoders switch on it: a binary
// search on the length and then a comparison with the few names of that
// length here, instead of a switch on the name in every struct's decoder.
// It is kept out of line for that reason.
//
//go:noinline
func (d *Decoder) Field(names []string) int {
	k := d.Key()
	lo, hi := 0, len(names)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if len(names[m]) < len(k) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < len(names) && len(names[i]) == len(k); i++ {
		if names[i] == string(k) {
			return i
		}
	}
	return -1
}

// Unknown reports the current member as one the schema does not allow
// (additionalProperties: false) and skips its value.
func (d *Decoder) Unknown() {
	d.Skip()
	d.Violate("unknown member")
}

// Skip reads the next value, whatever it is, with the same strictness as
// every other: duplicate members, unsafe strings and inexact integers in
// it are violations.
func (d *Decoder) Skip() {
	switch c := d.peek(); {
	case c == 0:
		d.fail("want a value")
	case c == '{':
		if d.open(true) {
			for d.Member() {
				d.Skip()
			}
		}
	case c == '[':
		if d.open(false) {
			for d.Next() {
				d.Skip()
			}
		}
	case c == '"':
		d.text()
	case c == 't':
		d.literal("true")
	case c == 'f':
		d.literal("false")
	case c == 'n':
		d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		d.number()
	default:
		d.fail("want a value")
	}
}

func (d *Decoder) literal(word string) {
	if !bytes.HasPrefix(d.src[d.pos:], []byte(word)) {
		d.fail("want a value")
		return
	}
	d.pos += len(word)
}
