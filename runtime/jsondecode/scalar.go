package jsondecode

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// MaxExactInt is the largest integer every JSON implementation holds
// exactly (I-JSON, RFC 7493 section 2.2): 2^53−1. Integers beyond
// ±MaxExactInt are refused wherever they appear.
const MaxExactInt = 1<<53 - 1

// String reads a string. A string PostgreSQL's text cannot hold (NUL,
// invalid UTF-8, a lone surrogate) is a violation.
func (d *Decoder) String() string {
	if d.peek() != '"' {
		d.wrongType("a string")
		return ""
	}
	return d.text()
}

// StringPtr is String into a new variable, for an optional member: one
// call where generated code would otherwise allocate and copy. It is kept
// out of line for the same reason.
//
//go:noinline
func (d *Decoder) StringPtr() *string {
	s := d.String()
	return &s
}

// text reads the string at the quote.
func (d *Decoder) text() string {
	if !d.scanString() {
		return ""
	}
	return string(d.buf)
}

// scanString decodes the string at the quote into d.buf; it reports false
// on malformed JSON. Unsafe content is a violation, not malformed JSON, so
// decoding goes on.
func (d *Decoder) scanString() bool {
	d.buf = d.buf[:0]
	d.pos++
	var unsafe string
	src := d.src
	for {
		i := d.pos
		for i < len(src) {
			c := src[i]
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
			i++
		}
		d.buf = append(d.buf, src[d.pos:i]...)
		d.pos = i
		if i >= len(src) {
			d.fail("unterminated string")
			return false
		}
		switch c := src[i]; {
		case c == '"':
			d.pos++
			if unsafe != "" {
				d.refuse(unsafe)
			}
			return true
		case c == '\\':
			r, ok := d.escape()
			if !ok {
				return false
			}
			switch {
			case r == 0:
				unsafe = "must not contain NUL (\\u0000)"
			case r == utf8.RuneError:
				unsafe = "must not contain a lone surrogate"
			}
		case c < 0x20:
			d.fail("control character " + strconv.QuoteRune(rune(c)) + " in a string")
			return false
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				unsafe = "must be valid UTF-8"
			}
			d.buf = append(d.buf, src[i:i+size]...)
			d.pos += size
		}
	}
}

// escape decodes the escape at the backslash into d.buf; a lone surrogate
// becomes U+FFFD and is returned as utf8.RuneError.
func (d *Decoder) escape() (rune, bool) {
	if d.pos+1 >= len(d.src) {
		d.fail("unterminated escape")
		return 0, false
	}
	var b byte
	switch d.src[d.pos+1] {
	case '"', '\\', '/':
		b = d.src[d.pos+1]
	case 'b':
		b = '\b'
	case 'f':
		b = '\f'
	case 'n':
		b = '\n'
	case 'r':
		b = '\r'
	case 't':
		b = '\t'
	case 'u':
		r, ok := d.hex4(d.pos)
		if !ok {
			d.fail("invalid \\u escape")
			return 0, false
		}
		d.pos += 6
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			r = utf8.RuneError
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := d.hex4(d.pos)
			if ok && lo >= 0xDC00 && lo <= 0xDFFF {
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				d.pos += 6
			} else {
				r = utf8.RuneError
			}
		}
		d.buf = utf8.AppendRune(d.buf, r)
		return r, true
	default:
		d.fail("invalid escape")
		return 0, false
	}
	d.buf = append(d.buf, b)
	d.pos += 2
	return rune(b), true
}

// hex4 reads the four hex digits of a \u escape whose backslash is at i.
func (d *Decoder) hex4(i int) (rune, bool) {
	if i+6 > len(d.src) || d.src[i] != '\\' || d.src[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range d.src[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number; integer reports whether its literal has neither
// fraction nor exponent. An integer literal beyond ±MaxExactInt, or a
// number beyond the range of a double, is a violation.
func (d *Decoder) number() (f float64, integer bool) {
	src := d.src
	start := d.pos
	i := d.pos
	if src[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && src[i] >= '1' && src[i] <= '9':
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		d.fail("invalid number")
		return 0, false
	}
	integer = true
	if i < len(src) && src[i] == '.' {
		integer = false
		i++
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			d.pos = i
			d.fail("invalid number: no digit after '.'")
			return 0, false
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		integer = false
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			d.pos = i
			d.fail("invalid number: no digit in the exponent")
			return 0, false
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	d.pos = i
	if integer && i-digits <= 15 {
		var v int64
		for _, c := range src[digits:i] {
			v = v*10 + int64(c-'0')
		}
		if start != digits {
			v = -v
		}
		return float64(v), true
	}
	f, err := strconv.ParseFloat(string(src[start:i]), 64)
	if err != nil {
		d.refuse("is outside the range of a double")
		return 0, integer
	}
	if integer && math.Abs(f) > MaxExactInt {
		d.refuse("is an integer beyond ±(2^53−1), which JSON cannot carry exactly; send it as a string")
		return 0, integer
	}
	return f, integer
}

// Float reads a number as a double.
func (d *Decoder) Float() float64 {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		d.wrongType("a number")
		return 0
	}
	f, _ := d.number()
	return f
}

// Int reads an integer within [lo, hi], which lie within ±MaxExactInt. A
// number with a fraction of zero (1.0, 1e2) is that integer; whether the
// fraction is zero is decided on the text, exactly, so
// 1.000000000000000000001 (which a double rounds to 1) is refused.
func (d *Decoder) Int(lo, hi int64) int64 {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		d.wrongType("an integer")
		return 0
	}
	start := d.pos
	f, integer := d.number()
	switch {
	case d.bad:
		return 0
	case !integer && !integral(d.src[start:d.pos]), f != math.Trunc(f):
		d.refuse("must be an integer")
		return 0
	case f < float64(lo):
		d.refuse("must be at least " + strconv.FormatInt(lo, 10))
		return 0
	case f > float64(hi):
		d.refuse("must be at most " + strconv.FormatInt(hi, 10))
		return 0
	}
	return int64(f)
}

// Bool reads true or false.
func (d *Decoder) Bool() bool {
	switch d.peek() {
	case 't':
		d.literal("true")
		return true
	case 'f':
		d.literal("false")
		return false
	}
	d.wrongType("a boolean")
	return false
}

// Int32Ptr is Int within int32's range into a new variable, as StringPtr
// is String.
//
//go:noinline
func (d *Decoder) Int32Ptr() *int32 {
	i := int32(d.Int(math.MinInt32, math.MaxInt32))
	return &i
}

// Int64Ptr is Int within ±MaxExactInt into a new variable, as StringPtr
// is String.
//
//go:noinline
func (d *Decoder) Int64Ptr() *int64 {
	i := d.Int(-MaxExactInt, MaxExactInt)
	return &i
}

// FloatPtr is Float into a new variable, as StringPtr is String.
//
//go:noinline
func (d *Decoder) FloatPtr() *float64 {
	f := d.Float()
	return &f
}

// BoolPtr is Bool into a new variable, as StringPtr is String.
//
//go:noinline
func (d *Decoder) BoolPtr() *bool {
	b := d.Bool()
	return &b
}

// The To forms store what they read through p, a field of the struct
// being decoded: the store, and its write barrier, are then made once
// here instead of in every generated decoder, about 30 bytes of machine
// code per field (docs/benchmarks.md, issue 24).

// StringTo is String stored in *p.
//
//go:noinline
func (d *Decoder) StringTo(p *string) { *p = d.String() }

// StringPtrTo is StringPtr stored in *p.
//
//go:noinline
func (d *Decoder) StringPtrTo(p **string) { *p = d.StringPtr() }

// Int32PtrTo is Int32Ptr stored in *p.
//
//go:noinline
func (d *Decoder) Int32PtrTo(p **int32) { *p = d.Int32Ptr() }

// Int64PtrTo is Int64Ptr stored in *p.
//
//go:noinline
func (d *Decoder) Int64PtrTo(p **int64) { *p = d.Int64Ptr() }

// FloatPtrTo is FloatPtr stored in *p.
//
//go:noinline
func (d *Decoder) FloatPtrTo(p **float64) { *p = d.FloatPtr() }

// BoolPtrTo is BoolPtr stored in *p.
//
//go:noinline
func (d *Decoder) BoolPtrTo(p **bool) { *p = d.BoolPtr() }

// Time reads an RFC 3339 date-time string (ParseDateTime).
func (d *Decoder) Time() time.Time {
	s := d.String()
	if d.bad || d.syntax != nil {
		return time.Time{}
	}
	t, ok := ParseDateTime(s)
	if !ok {
		d.refuse("must be an RFC 3339 date-time such as 2024-05-01T12:00:00Z")
		return time.Time{}
	}
	return t
}

// Raw reads any value and returns its text, checked as strictly as every
// other value, for the fields a schema leaves free-form or unions.
func (d *Decoder) Raw() json.RawMessage {
	d.space()
	start := d.pos
	d.Skip()
	if d.syntax != nil {
		return nil
	}
	return bytes.Clone(d.src[start:d.pos])
}

// Mark returns the offset of the next value, for UniqueItems.
func (d *Decoder) Mark() int {
	d.space()
	return d.pos
}

// integral reports whether the JSON number lit is an integer: whether
// every non-zero digit of its mantissa stands before the decimal point
// once the exponent has moved it. It reads the text, so no rounding of a
// double can turn a fraction into an integer.
func integral(lit []byte) bool {
	mantissa, exp, _ := bytes.Cut(bytes.TrimPrefix(lit, []byte("-")), []byte("e"))
	if len(exp) == 0 {
		mantissa, exp, _ = bytes.Cut(mantissa, []byte("E"))
	}
	whole, frac, _ := bytes.Cut(mantissa, []byte("."))
	digits := append(bytes.Clone(whole), frac...)
	last := bytes.LastIndexFunc(digits, func(r rune) bool { return r != '0' })
	if last < 0 {
		return true // zero
	}
	// The point stands after len(whole) digits, moved by the exponent;
	// an exponent too long to matter is capped.
	shift := 0
	neg := len(exp) > 0 && exp[0] == '-'
	for _, c := range bytes.TrimLeft(exp, "+-") {
		if shift < 1<<40 {
			shift = shift*10 + int(c-'0')
		}
	}
	if neg {
		shift = -shift
	}
	return last < len(whole)+shift
}
