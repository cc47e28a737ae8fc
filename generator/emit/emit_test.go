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
