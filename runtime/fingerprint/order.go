package fingerprint

import "slices"

// compareUTF16 orders two valid UTF-8 strings by their UTF-16 code units, as
// RFC 8785 orders member names.
//
// Byte order of UTF-8 equals code point order, and code point order equals
// UTF-16 order except between a supplementary character (a surrogate pair,
// D800–DFFF) and a BMP character in E000–FFFF. Both texts share every byte
// before the first difference, so that difference is either inside runes
// with the same lead byte (same class, byte order holds) or between two lead
// bytes, where F0–F4 (supplementary) against EE–EF (E000–FFFF) is the one
// case to invert.
func compareUTF16[A, B string | []byte](a A, b B) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x >= 0xF0 && (y == 0xEE || y == 0xEF) {
			return -1
		}
		if y >= 0xF0 && (x == 0xEE || x == 0xEF) {
			return 1
		}
		if x < y {
			return -1
		}
		return 1
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// SortKeys returns a sorted copy of names in RFC 8785 member order (by UTF-16
// code units), the order in which a [Writer] must receive object members.
// Generators call it once and hard-code the result. Names must be valid
// UTF-8.
func SortKeys(names []string) []string {
	sorted := slices.Clone(names)
	slices.SortFunc(sorted, compareUTF16[string, string])
	return sorted
}
