package jsondecode

import (
	"math"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// The check methods report a violation at the current value when it breaks
// the schema keyword they are named after; generated decoders call them
// right after reading the value. They stay silent when the value could not
// be read as its type (that violation says enough).

// MinLength checks minLength, counted in characters (code points).
func (d *Decoder) MinLength(s string, n int) {
	if d.bad {
		return
	}
	if utf8.RuneCountInString(s) < n {
		d.Violate("must be at least " + strconv.Itoa(n) + " characters long")
	}
}

// MaxLength checks maxLength, counted in characters (code points).
func (d *Decoder) MaxLength(s string, n int) {
	if d.bad {
		return
	}
	if len(s) > n && utf8.RuneCountInString(s) > n {
		d.Violate("must be at most " + strconv.Itoa(n) + " characters long")
	}
}

// Pattern checks pattern: re must match somewhere in s (ECMA-262 search
// semantics, as JSON Schema says); source is the pattern as the schema
// writes it.
func (d *Decoder) Pattern(s string, re *regexp.Regexp, source string) {
	if d.bad {
		return
	}
	if !re.MatchString(s) {
		d.Violate("must match the pattern " + source)
	}
}

// Minimum checks minimum, or exclusiveMinimum when exclusive.
func (d *Decoder) Minimum(v, min float64, exclusive bool) {
	if d.bad {
		return
	}
	switch {
	case exclusive && v <= min:
		d.Violate("must be greater than " + num(min))
	case !exclusive && v < min:
		d.Violate("must be at least " + num(min))
	}
}

// Maximum checks maximum, or exclusiveMaximum when exclusive.
func (d *Decoder) Maximum(v, max float64, exclusive bool) {
	if d.bad {
		return
	}
	switch {
	case exclusive && v >= max:
		d.Violate("must be less than " + num(max))
	case !exclusive && v > max:
		d.Violate("must be at most " + num(max))
	}
}

// MultipleOf checks multipleOf: v divided by m is an integer, within the
// rounding of a double.
func (d *Decoder) MultipleOf(v, m float64) {
	if d.bad {
		return
	}
	q := v / m
	if math.IsInf(q, 0) || math.Abs(q-math.Round(q)) > 1e-9*math.Max(1, math.Abs(q)) {
		d.Violate("must be a multiple of " + num(m))
	}
}

// MinItems checks minItems against an array of n elements.
func (d *Decoder) MinItems(n, min int) {
	if d.bad {
		return
	}
	if n < min {
		d.Violate("must have at least " + strconv.Itoa(min) + " items")
	}
}

// MaxItems checks maxItems against an array of n elements.
func (d *Decoder) MaxItems(n, max int) {
	if d.bad {
		return
	}
	if n > max {
		d.Violate("must have at most " + strconv.Itoa(max) + " items")
	}
}

// MinProperties checks minProperties against an object of n members.
func (d *Decoder) MinProperties(n, min int) {
	if d.bad {
		return
	}
	if n < min {
		d.Violate("must have at least " + strconv.Itoa(min) + " members")
	}
}

// MaxProperties checks maxProperties against an object of n members.
func (d *Decoder) MaxProperties(n, max int) {
	if d.bad {
		return
	}
	if n > max {
		d.Violate("must have at most " + strconv.Itoa(max) + " members")
	}
}

// UniqueItems checks uniqueItems on the array that began at mark (see
// Mark) and was just read: no two elements are equal as JSON values, which
// is equal canonical forms (RFC 8785).
func (d *Decoder) UniqueItems(mark int) {
	if d.syntax != nil {
		return
	}
	sub := New(d.src[mark:d.pos])
	var items [][]byte
	if sub.BeginArray() {
		for sub.Next() {
			start := sub.Mark()
			sub.Skip()
			items = append(items, sub.src[start:sub.pos])
		}
	}
	_ = sub.Finish()
	for _, i := range repeats(items) {
		d.violateElement(i, "must not repeat an earlier item (uniqueItems)")
	}
}

// repeats returns the indexes of the items, JSON texts, that equal an
// earlier one as JSON values: equal canonical forms (RFC 8785). An item
// that does not canonicalize (nil included) is not compared.
func repeats(items [][]byte) []int {
	seen := make(map[string]bool, len(items))
	var out []int
	for i, item := range items {
		c, err := fingerprint.Canonicalize(item)
		if err != nil {
			continue
		}
		if seen[string(c)] {
			out = append(out, i)
			continue
		}
		seen[string(c)] = true
	}
	return out
}

// violateElement reports a violation at element i of the array just
// closed.
func (d *Decoder) violateElement(i int, reason string) {
	if d.tried() {
		return
	}
	if len(d.violations) >= maxViolations {
		d.dropped++
		return
	}
	d.violations = append(d.violations, Violation{Pointer: d.pointer(strconv.Itoa(i)), Reason: reason})
}

// num words a bound of the schema.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// NotOneOf reports a value outside an enum or const; wording lists the
// allowed values ("one of \"a\", \"b\""). It is kept out of line: generated
// decoders call it at every enum and const check, on the failure path.
//
//go:noinline
func (d *Decoder) NotOneOf(wording string) {
	if d.bad {
		return
	}
	d.Violate("must be " + wording)
}

// Enum reads a string that must be one of values, the enum's values in
// the schema's order, and returns it; any other string is reported as
// NotOneOf would with the values quoted ("one of \"a\", \"b\""). A
// generated enum decoder is this one call over its table of values.
func (d *Decoder) Enum(values []string) string {
	if d.peek() != '"' {
		d.wrongType("a string")
		return ""
	}
	if !d.scanString() {
		return ""
	}
	// Length and first byte first: a table can be long (Stripe's tax id
	// types are 66 values), and most values differ there.
	n := len(d.buf)
	for _, v := range values {
		if len(v) == n && (n == 0 || v[0] == d.buf[0]) && string(d.buf) == v {
			return v
		}
	}
	s := string(d.buf)
	d.notEnum(values)
	return s
}

// EnumPtr is Enum into a new variable, for an optional member, as
// StringPtr is String.
//
//go:noinline
func (d *Decoder) EnumPtr(values []string) *string {
	s := d.Enum(values)
	return &s
}

// notEnum reports a string outside values.
func (d *Decoder) notEnum(values []string) {
	if d.bad {
		return
	}
	b := []byte("must be one of ")
	for i, v := range values {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, v)
	}
	d.Violate(string(b))
}
