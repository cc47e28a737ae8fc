package generator

import (
	"strings"
	"unicode"
)

// commentText makes spec text (an operationId, a path, a property name)
// safe to put in a generated comment: line breaks, tabs and other control
// or format characters become spaces, runs of spaces collapse, and the
// comment delimiters */ and /* are broken up, so the text can never end a
// comment or start code, whatever the emitter does with it.
func commentText(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) || r == unicode.ReplacementChar {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	out = strings.ReplaceAll(out, "*/", "* /")
	return strings.ReplaceAll(out, "/*", "/ *")
}
