package fingerprint

// The member methods write one object member, its name and its value, in
// one call: what [Writer.Key] followed by the value's own method writes, so
// a typed fingerprint's bytes do not depend on which of the two forms
// generated code uses. The Optional forms write nothing when the pointer is
// nil, as encoding/json omits a nil optional member.
//
// They exist for the size of generated code: a Key call and a value call
// per member, and a nil test per optional one, were half of a typed
// fingerprint's machine code (docs/benchmarks.md, issue 24). They are kept
// out of line for the same reason.

// MemberString writes a member whose value is a string.
//
//go:noinline
func (w *Writer) MemberString(name, s string) {
	w.Key(name)
	w.String(s)
}

// MemberInt writes a member whose value is an integer, as [Writer.Int].
//
//go:noinline
func (w *Writer) MemberInt(name string, i int64) {
	w.Key(name)
	w.Int(i)
}

// MemberFloat writes a member whose value is a number, as [Writer.Float].
//
//go:noinline
func (w *Writer) MemberFloat(name string, f float64) {
	w.Key(name)
	w.Float(f)
}

// MemberBool writes a member whose value is true or false.
//
//go:noinline
func (w *Writer) MemberBool(name string, b bool) {
	w.Key(name)
	w.Bool(b)
}

// OptionalString writes a member whose value is *p, or nothing when p is
// nil. An optional enum passes its pointer converted to *string.
//
//go:noinline
func (w *Writer) OptionalString(name string, p *string) {
	if p != nil {
		w.MemberString(name, *p)
	}
}

// OptionalInt writes a member whose value is *p, or nothing when p is nil.
//
//go:noinline
func (w *Writer) OptionalInt(name string, p *int64) {
	if p != nil {
		w.MemberInt(name, *p)
	}
}

// OptionalInt32 writes a member whose value is *p, or nothing when p is
// nil.
//
//go:noinline
func (w *Writer) OptionalInt32(name string, p *int32) {
	if p != nil {
		w.MemberInt(name, int64(*p))
	}
}

// OptionalFloat writes a member whose value is *p, or nothing when p is
// nil.
//
//go:noinline
func (w *Writer) OptionalFloat(name string, p *float64) {
	if p != nil {
		w.MemberFloat(name, *p)
	}
}

// OptionalBool writes a member whose value is *p, or nothing when p is nil.
//
//go:noinline
func (w *Writer) OptionalBool(name string, p *bool) {
	if p != nil {
		w.MemberBool(name, *p)
	}
}
