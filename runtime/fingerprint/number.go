package fingerprint

import (
	"math"
	"strconv"
)

// appendNumber appends f as ECMAScript's Number.prototype.toString writes
// it (ECMA-262 Number::toString, as RFC 8785 section 3.2.2.3 requires): the
// shortest digits that read back as f, in plain notation for 1e-6 <= |f| <
// 1e21 and in exponent notation otherwise; -0 is written 0. f must be
// finite.
func appendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		// Every integer below 2^53 is exact, so its shortest digits are
		// its own.
		return strconv.AppendInt(dst, int64(f), 10)
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // [-]d[.ddd]e±xx
	if b[0] == '-' {
		dst = append(dst, '-')
		b = b[1:]
	}
	e := 0
	for e < len(b) && b[e] != 'e' {
		e++
	}
	var digits [24]byte
	k := copy(digits[:], b[:1])
	if e > 1 {
		k += copy(digits[k:], b[2:e])
	}
	exp := 0
	for _, c := range b[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if b[e+1] == '-' {
		exp = -exp
	}
	n := exp + 1 // the decimal point sits after n digits
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits[:k]...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:k]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits[:k]...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:k]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
