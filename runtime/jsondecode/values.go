package jsondecode

import "unicode/utf8"

// NewValues returns a Decoder without a JSON text, for checking values
// decoded another way: the parameters of an operation without a JSON body,
// and form bodies. The check methods report at the parameter Param names
// or at the place Enter, EnterIndex and Leave keep; Finish returns what
// they found.
func NewValues() *Decoder {
	d := decoders.Get().(*Decoder)
	d.src, d.pos = nil, 0
	d.stack, d.names, d.keys, d.buf = d.stack[:0], d.names[:0], d.keys[:0], d.buf[:0]
	d.syntax, d.violations, d.dropped, d.param, d.bad = nil, nil, 0, nil, false
	return d
}

// Enter moves the place checks report at into the member name of the
// current object, for a value decoded without this Decoder.
func (d *Decoder) Enter(name string) {
	off := len(d.names)
	d.names = append(d.names, name...)
	d.stack = append(d.stack, frame{object: true, key: span{off, len(name)}})
	d.bad = false
}

// EnterIndex moves the place checks report at into element i of the
// current array.
func (d *Decoder) EnterIndex(i int) {
	d.stack = append(d.stack, frame{index: i})
	d.bad = false
}

// Leave undoes the last Enter or EnterIndex.
func (d *Decoder) Leave() {
	f := d.stack[len(d.stack)-1]
	if f.object {
		d.names = d.names[:f.key.off]
	}
	d.stack = d.stack[:len(d.stack)-1]
	d.bad = false
}

// ViolateAt reports a violation at pointer, a JSON pointer into the body
// given whole, for a failure found outside the check methods.
func (d *Decoder) ViolateAt(pointer, reason string) {
	if len(d.violations) >= maxViolations {
		d.dropped++
		return
	}
	d.violations = append(d.violations, Violation{Pointer: pointer, Reason: reason})
}

// Text checks that a string decoded without this Decoder is one
// PostgreSQL's text can hold, as String requires of JSON strings: valid
// UTF-8 without NUL. Its other checks stay silent when it is not.
func (d *Decoder) Text(s string) {
	if !utf8.ValidString(s) {
		d.refuse("must be valid UTF-8")
		return
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			d.refuse("must not contain NUL")
			return
		}
	}
}

// Repeated reports that element i of the array being checked repeats an
// earlier one (uniqueItems), for arrays decoded without this Decoder.
func (d *Decoder) Repeated(i int) {
	d.EnterIndex(i)
	d.Violate("must not repeat an earlier item (uniqueItems)")
	d.Leave()
}

// UniqueEncoded checks uniqueItems on n decoded items that are not
// scalars, such as a form's array of objects: encode returns item i as
// JSON, and two items are equal when their canonical forms (RFC 8785)
// are, as for a JSON body. Each item equal to an earlier one is reported
// at its index; an item that cannot be encoded is not compared.
func (d *Decoder) UniqueEncoded(n int, encode func(i int) ([]byte, error)) {
	items := make([][]byte, n)
	for i := range n {
		if b, err := encode(i); err == nil {
			items[i] = b // one that fails stays nil, and is not compared
		}
	}
	for _, i := range repeats(items) {
		d.Repeated(i)
	}
}
