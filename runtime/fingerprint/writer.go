package fingerprint

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"
)

// Writer builds canonical JSON one token at a time, for generated typed
// fingerprints that must not use reflection. Its output equals
// [Canonicalize] of the same value, provided object members arrive in
// [SortKeys] order; Key checks that order, so a generator bug surfaces as an
// error rather than as a silently different fingerprint.
//
// Writer methods do not return errors: the first problem is kept, later calls
// are ignored, and [Writer.Result] reports it. The zero Writer is ready to
// use; [Writer.Reset] makes one reusable.
type Writer struct {
	buf    []byte
	frames []frame
	starts []int  // element starts of the unordered arrays being written
	tmp    []byte // scratch for sorting an unordered array
	spans  []span // the elements of the unordered array being sorted
	done   bool   // the top-level value is complete
	err    error
}

// frame is an open array or object.
type frame struct {
	kind      byte   // '[', '{' or 'u' (unordered array)
	count     int    // members or elements so far
	wantValue bool   // an object member name was written, its value not yet
	lastKey   string // the previous member name, for the order check
	start     int    // where an unordered array starts in buf
	base      int    // first entry of starts for an unordered array
}

var writers = sync.Pool{New: func() any { return new(Writer) }}

func getWriter() *Writer { return writers.Get().(*Writer) }

func putWriter(w *Writer) {
	if cap(w.buf) > poolLimit || cap(w.tmp) > poolLimit {
		return
	}
	w.Reset()
	writers.Put(w)
}

// Reset empties w, keeping its buffers.
func (w *Writer) Reset() {
	clear(w.frames[:cap(w.frames)]) // drop member names, which may be request data
	w.buf, w.frames, w.starts = w.buf[:0], w.frames[:0], w.starts[:0]
	w.done, w.err = false, nil
}

// Result returns the canonical JSON written so far, which must be one
// complete value, or the first error. The bytes belong to w until its next
// Reset.
func (w *Writer) Result() ([]byte, error) {
	switch {
	case w.err != nil:
		return nil, w.err
	case !w.done:
		return nil, errors.New("fingerprint: writer: incomplete value")
	}
	return w.buf, nil
}

func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *Writer) misuse(what string) {
	w.fail(errors.New("fingerprint: writer: " + what))
}

// beforeValue does the bookkeeping that precedes any value and reports
// whether the value may be written.
func (w *Writer) beforeValue() bool {
	if w.err != nil {
		return false
	}
	if len(w.frames) == 0 {
		if w.done {
			w.misuse("second top-level value")
			return false
		}
		return true
	}
	f := &w.frames[len(w.frames)-1]
	switch f.kind {
	case '{':
		if !f.wantValue {
			w.misuse("value without a member name")
			return false
		}
		f.wantValue = false
	case '[':
		if f.count > 0 {
			w.buf = append(w.buf, ',')
		}
		f.count++
	case 'u':
		w.starts = append(w.starts, len(w.buf))
		f.count++
	}
	return true
}

// afterValue marks the top-level value complete when no container is open.
func (w *Writer) afterValue() {
	if len(w.frames) == 0 {
		w.done = true
	}
}

// BeginObject opens an object.
//
// It is kept out of line: a generated typed fingerprint calls it at every
// object it writes; inlined there with BeginArray and EndArray, the call
// sites were 40% of those functions' machine code (docs/benchmarks.md).
//
//go:noinline
func (w *Writer) BeginObject() {
	if w.beforeValue() {
		w.frames = append(w.frames, frame{kind: '{'})
		w.buf = append(w.buf, '{')
	}
}

// Key writes the name of the next object member. Names must be valid UTF-8
// and strictly increasing in [SortKeys] order.
func (w *Writer) Key(name string) {
	if w.err != nil {
		return
	}
	if len(w.frames) == 0 || w.frames[len(w.frames)-1].kind != '{' {
		w.misuse("member name outside an object")
		return
	}
	f := &w.frames[len(w.frames)-1]
	switch {
	case f.wantValue:
		w.misuse(fmt.Sprintf("member name %q where a value was due", name))
		return
	case !utf8.ValidString(name):
		w.fail(fmt.Errorf("%w: member name %q is not valid UTF-8", ErrInvalidValue, name))
		return
	case f.count > 0 && compareUTF16(f.lastKey, name) >= 0:
		w.misuse(fmt.Sprintf("member %q after %q: names must be unique and in SortKeys order", name, f.lastKey))
		return
	}
	if f.count > 0 {
		w.buf = append(w.buf, ',')
	}
	f.count++
	f.lastKey = name
	f.wantValue = true
	w.buf = appendString(w.buf, name)
	w.buf = append(w.buf, ':')
}

// EndObject closes the innermost object.
func (w *Writer) EndObject() {
	if w.err != nil {
		return
	}
	if len(w.frames) == 0 || w.frames[len(w.frames)-1].kind != '{' || w.frames[len(w.frames)-1].wantValue {
		w.misuse("EndObject without an open object awaiting no value")
		return
	}
	w.frames = w.frames[:len(w.frames)-1]
	w.buf = append(w.buf, '}')
	w.afterValue()
}

// BeginArray opens an array whose elements keep their order.
//
// It is kept out of line, as BeginObject is.
//
//go:noinline
func (w *Writer) BeginArray() {
	if w.beforeValue() {
		w.frames = append(w.frames, frame{kind: '['})
		w.buf = append(w.buf, '[')
	}
}

// EndArray closes the innermost array opened by BeginArray.
//
// It is kept out of line, as BeginObject is.
//
//go:noinline
func (w *Writer) EndArray() {
	if w.err != nil {
		return
	}
	if len(w.frames) == 0 || w.frames[len(w.frames)-1].kind != '[' {
		w.misuse("EndArray without an open array")
		return
	}
	w.frames = w.frames[:len(w.frames)-1]
	w.buf = append(w.buf, ']')
	w.afterValue()
}

// BeginUnorderedArray opens an array compared as a multiset: its elements
// are sorted by their canonical bytes when it ends, as [Spec.Unordered]
// sorts them.
func (w *Writer) BeginUnorderedArray() {
	if w.beforeValue() {
		w.frames = append(w.frames, frame{kind: 'u', start: len(w.buf), base: len(w.starts)})
	}
}

// EndUnorderedArray sorts and closes the innermost unordered array.
func (w *Writer) EndUnorderedArray() {
	if w.err != nil {
		return
	}
	if len(w.frames) == 0 || w.frames[len(w.frames)-1].kind != 'u' {
		w.misuse("EndUnorderedArray without an open unordered array")
		return
	}
	f := w.frames[len(w.frames)-1]
	w.frames = w.frames[:len(w.frames)-1]
	starts := w.starts[f.base:]
	w.spans = w.spans[:0]
	for i, s := range starts {
		end := len(w.buf)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		w.spans = append(w.spans, span{off: uint32(s - f.start), n: uint32(end - s)})
	}
	w.starts = w.starts[:f.base]
	w.buf, w.tmp = sortElements(w.buf, f.start, w.spans, w.tmp)
	w.afterValue()
}

// String writes a string value, which must be valid UTF-8.
func (w *Writer) String(s string) {
	if !utf8.ValidString(s) {
		w.fail(fmt.Errorf("%w: string %q is not valid UTF-8", ErrInvalidValue, s))
		return
	}
	if w.beforeValue() {
		w.buf = appendString(w.buf, s)
		w.afterValue()
	}
}

// Float writes a number, which must be finite.
func (w *Writer) Float(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		w.fail(fmt.Errorf("%w: number %v has no JSON form", ErrInvalidValue, f))
		return
	}
	if w.beforeValue() {
		w.buf = appendNumber(w.buf, f)
		w.afterValue()
	}
}

// Int writes an integer as the double JSON readers make of it: beyond 2^53
// it is rounded, exactly as [Canonicalize] rounds the same literal.
func (w *Writer) Int(i int64) { w.Float(float64(i)) }

// Uint writes an unsigned integer, rounded like [Writer.Int].
func (w *Writer) Uint(u uint64) { w.Float(float64(u)) }

// Bool writes true or false.
func (w *Writer) Bool(b bool) {
	if w.beforeValue() {
		if b {
			w.buf = append(w.buf, "true"...)
		} else {
			w.buf = append(w.buf, "false"...)
		}
		w.afterValue()
	}
}

// Null writes null.
func (w *Writer) Null() {
	if w.beforeValue() {
		w.buf = append(w.buf, "null"...)
		w.afterValue()
	}
}

// raw writes b, which must already be one canonical JSON value.
func (w *Writer) raw(b []byte) {
	if w.beforeValue() {
		w.buf = append(w.buf, b...)
		w.afterValue()
	}
}

// JSON writes a value given as JSON text, such as a json.RawMessage field
// that holds a union or a free-form value: the text is canonicalised first,
// so it fingerprints as Canonicalize would render it inside the body.
func (w *Writer) JSON(src []byte) {
	if w.err != nil {
		return
	}
	d := getDocument()
	defer putDocument(d)
	if err := d.parse(src); err != nil {
		w.fail(err)
		return
	}
	d.out = d.appendValue(d.out[:0], &d.root)
	w.raw(d.out)
}

// Marshaled writes the result of json.Marshal for a value whose structure
// the generator cannot see, such as a type bound with x-go-type: generated
// code calls w.Marshaled(json.Marshal(v)). A marshalling error fails the
// Writer.
func (w *Writer) Marshaled(src []byte, err error) {
	if err != nil {
		w.fail(fmt.Errorf("%w: %w", ErrInvalidValue, err))
		return
	}
	w.JSON(src)
}
