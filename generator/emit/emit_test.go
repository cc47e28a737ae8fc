package emit

import (
	"strings"
	"testing"
)

// TestWrap checks that comment lines stay within the width and that no
// line break or control character survives into a line.
func TestWrap(t *testing.T) {
	text := "a contract of evil */ func init() {}\n// x\x00y\u2028z and a long tail of words to wrap around the width"
	for _, l := range wrap(text, 30) {
		if len(l) > 30 && strings.Contains(l, " ") {
			t.Errorf("line %q is longer than 30", l)
		}
		if strings.ContainsAny(l, "\n\r\x00\u2028") {
			t.Errorf("line %q holds a line break or control character", l)
		}
	}
}

// TestWrapLines checks the lines wrap makes, on printable ASCII and on
// text with control and format characters (DEL, a tab, a zero-width
// space), which become spaces: words joined by one space, a word wider
// than the width on a line of its own.
func TestWrapLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"one two  three four", []string{"one two", "three four"}},
		{"a verylongwordindeed b", []string{"a", "verylongwordindeed", "b"}},
		{"one\x7ftwo\tthree\u200bfour ünï", []string{"one two", "three four", "ünï"}},
		{"  \x00 ", nil},
	} {
		got := wrap(tc.text, 10)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("wrap(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
