package fingerprint

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the test helpers that make random JSON values, render
// them through a Writer, and re-serialise them with the same meaning but
// different text. Values have the shapes encoding/json gives any:
// map[string]any, []any, string, float64, bool and nil.

// runePool mixes the characters whose handling differs between encoders:
// JCS escapes, controls, DEL, line separators, non-ASCII, both sides of the
// UTF-16 ordering inversion, and supplementary characters.
var runePool = []rune{
	'a', 'b', 'z', 'A', '0', '1', ' ', '/', '~', '*', '"', '\\', '<', '>', '&', '\'',
	0x00, 0x01, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1f, 0x7f,
	0x80, 0xe9, 0xf6, 0x2028, 0x2029, 0x20ac, 0xd7ff, 0xe000, 0xfb33, 0xfeff, 0xfffd, 0xffff,
	0x10000, 0x1f600, 0x10ffff,
}

func randString(r *rand.Rand) string {
	n := r.IntN(6)
	var b strings.Builder
	for range n {
		b.WriteRune(runePool[r.IntN(len(runePool))])
	}
	return b.String()
}

func randFloat(r *rand.Rand) float64 {
	switch r.IntN(8) {
	case 0:
		return float64(r.IntN(1000) - 500)
	case 1:
		return float64(r.Int64()) // beyond 2^53
	case 2:
		return r.Float64() * math.Pow(10, float64(r.IntN(40)-20))
	case 3:
		return -r.Float64() * math.Pow(10, float64(r.IntN(600)-300))
	case 4:
		return float64(r.IntN(100000)) / 100 // prices
	case 5:
		for {
			f := math.Float64frombits(r.Uint64())
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f
			}
		}
	case 6:
		return math.Copysign(0, -1)
	default:
		return math.Pow(10, float64(r.IntN(50)-25)) // the notation boundaries
	}
}

// randValue returns a random JSON value nested at most depth levels.
func randValue(r *rand.Rand, depth int) any {
	k := r.IntN(8)
	if depth <= 0 {
		k = r.IntN(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		return randFloat(r)
	case 4:
		return randString(r)
	case 5, 6:
		m := map[string]any{}
		for range r.IntN(6) {
			m[randString(r)] = randValue(r, depth-1)
		}
		return m
	default:
		a := make([]any, r.IntN(6))
		for i := range a {
			a[i] = randValue(r, depth-1)
		}
		return a
	}
}

// writeAny renders v with w, members in SortKeys order; with unordered set
// every array is written as an unordered one.
func writeAny(w *Writer, v any, unordered bool) {
	switch v := v.(type) {
	case nil:
		w.Null()
	case bool:
		w.Bool(v)
	case float64:
		w.Float(v)
	case string:
		w.String(v)
	case []any:
		if unordered {
			w.BeginUnorderedArray()
		} else {
			w.BeginArray()
		}
		for _, e := range v {
			writeAny(w, e, unordered)
		}
		if unordered {
			w.EndUnorderedArray()
		} else {
			w.EndArray()
		}
	case map[string]any:
		w.BeginObject()
		for _, k := range SortKeys(mapKeys(v)) {
			w.Key(k)
			writeAny(w, v[k], unordered)
		}
		w.EndObject()
	default:
		panic("writeAny: unexpected type")
	}
}

func mapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// reserializer writes a value as a different JSON text with the same
// meaning: random whitespace, shuffled members, numbers respelled, and
// characters written as escapes.
type reserializer struct {
	r   *rand.Rand
	buf []byte
	// shuffleDepths: arrays at these depths are shuffled (they are
	// unordered under the spec being tested); 0 is the top level.
	shuffleDepths []int
	// excludedName, unless empty: members with this name in objects at
	// depths 0 and 1 (pointers /x and /*/x) get a random new value (they
	// are excluded under the spec being tested).
	excludedName string
}

func (s *reserializer) space() {
	for range s.r.IntN(3) {
		s.buf = append(s.buf, " \t\n\r"[s.r.IntN(4)])
	}
}

func (s *reserializer) value(v any, depth int) {
	s.space()
	switch v := v.(type) {
	case nil:
		s.buf = append(s.buf, "null"...)
	case bool:
		s.buf = strconv.AppendBool(s.buf, v)
	case float64:
		s.number(v)
	case string:
		s.string(v)
	case []any:
		elems := slices.Clone(v)
		if slices.Contains(s.shuffleDepths, depth) {
			s.r.Shuffle(len(elems), func(i, j int) { elems[i], elems[j] = elems[j], elems[i] })
		}
		s.buf = append(s.buf, '[')
		for i, e := range elems {
			if i > 0 {
				s.space()
				s.buf = append(s.buf, ',')
			}
			s.value(e, depth+1)
		}
		s.space()
		s.buf = append(s.buf, ']')
	case map[string]any:
		keys := mapKeys(v)
		slices.Sort(keys)
		s.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		s.buf = append(s.buf, '{')
		for i, k := range keys {
			if i > 0 {
				s.space()
				s.buf = append(s.buf, ',')
			}
			s.space()
			s.string(k)
			s.space()
			s.buf = append(s.buf, ':')
			e := v[k]
			if s.excludedName != "" && k == s.excludedName && (depth == 0 || depth == 1) {
				e = randValue(s.r, 1)
			}
			s.value(e, depth+1)
		}
		s.space()
		s.buf = append(s.buf, '}')
	}
	s.space()
}

// number writes f in one of several spellings that read back as f.
func (s *reserializer) number(f float64) {
	if f == 0 {
		s.buf = append(s.buf, [...]string{"0", "-0", "0.0", "0e10", "-0.000E-3"}[s.r.IntN(5)]...)
		return
	}
	switch s.r.IntN(6) {
	case 0:
		s.buf = strconv.AppendFloat(s.buf, f, 'g', -1, 64)
	case 1:
		s.buf = strconv.AppendFloat(s.buf, f, 'E', -1, 64)
	case 2:
		s.buf = strconv.AppendFloat(s.buf, f, 'e', 16, 64) // 17 significant digits
	case 3:
		s.buf = strconv.AppendFloat(s.buf, f, 'f', -1, 64)
	default:
		// Shift the decimal point of the shortest digits and compensate in
		// the exponent: 125 → 0.125e3, 1250e-1, 12.50E+1.
		b := strconv.AppendFloat(nil, f, 'e', -1, 64)
		neg := b[0] == '-'
		if neg {
			b = b[1:]
		}
		e := slices.Index(b, 'e')
		digits := string(b[:1])
		if e > 1 {
			digits += string(b[2:e])
		}
		exp, _ := strconv.Atoi(string(b[e+1:]))
		exp -= len(digits) - 1 // value = digits × 10^exp
		if neg {
			s.buf = append(s.buf, '-')
		}
		shift := s.r.IntN(len(digits) + 2)
		switch s.r.IntN(3) {
		case 0: // leading "0." before all digits
			s.buf = append(s.buf, "0."...)
			s.buf = append(s.buf, digits...)
			exp += len(digits)
		case 1: // trailing zeros
			s.buf = append(s.buf, digits...)
			s.buf = append(s.buf, strings.Repeat("0", shift)...)
			exp -= shift
		default: // point inside the digits plus trailing fraction zeros
			p := 1 + s.r.IntN(len(digits))
			if p == len(digits) {
				shift++ // a fraction needs a digit
			}
			s.buf = append(s.buf, digits[:p]...)
			s.buf = append(s.buf, '.')
			s.buf = append(s.buf, digits[p:]...)
			s.buf = append(s.buf, strings.Repeat("0", shift)...)
			exp += len(digits) - p
		}
		s.buf = append(s.buf, "eE"[s.r.IntN(2)])
		if exp >= 0 && s.r.IntN(2) == 0 {
			s.buf = append(s.buf, '+')
		}
		s.buf = strconv.AppendInt(s.buf, int64(exp), 10)
	}
}

// string writes v with each character literal or escaped at random.
func (s *reserializer) string(v string) {
	s.buf = append(s.buf, '"')
	for _, c := range v {
		escape := s.r.IntN(3) == 0
		switch {
		case c == '"' || c == '\\':
			if escape {
				s.buf = appendUnicodeEscape(s.buf, c)
			} else {
				s.buf = append(s.buf, '\\', byte(c))
			}
		case c < 0x20:
			short := map[rune]byte{'\b': 'b', '\t': 't', '\n': 'n', '\f': 'f', '\r': 'r'}[c]
			if short != 0 && !escape {
				s.buf = append(s.buf, '\\', short)
			} else {
				s.buf = appendUnicodeEscape(s.buf, c)
			}
		case c == '/' && escape && s.r.IntN(2) == 0:
			s.buf = append(s.buf, '\\', '/')
		case escape:
			s.buf = appendUnicodeEscape(s.buf, c)
		default:
			s.buf = utf8.AppendRune(s.buf, c)
		}
	}
	s.buf = append(s.buf, '"')
}

// appendUnicodeEscape writes c as \uXXXX, or as a surrogate pair, in random
// letter case.
func appendUnicodeEscape(dst []byte, c rune) []byte {
	if c >= 0x10000 {
		c -= 0x10000
		dst = appendUnicodeEscape(dst, 0xD800+(c>>10))
		return appendUnicodeEscape(dst, 0xDC00+(c&0x3FF))
	}
	hex := "0123456789abcdef"
	if c%2 == 0 {
		hex = "0123456789ABCDEF"
	}
	return append(dst, '\\', 'u', hex[c>>12&0xF], hex[c>>8&0xF], hex[c>>4&0xF], hex[c&0xF])
}
