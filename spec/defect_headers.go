package spec

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// headerDefects reports every response header and header parameter of op
// whose name is not an HTTP token (RFC 9110, section 5.1): net/http drops
// such a field from a response without a word, and a request never
// carries it, so what the spec documents and what generated code sends
// would differ. Each is reported at the name, in the file that holds it,
// following $refs to responses and parameters.
func (l *loader) headerDefects(op *Operation) []Diagnostic {
	at, ok := l.opNodes[op]
	if !ok {
		return nil
	}
	where := op.Method + " " + op.Path
	var out []Diagnostic
	bad := func(src *source, name *yaml.Node, what string) {
		if httpToken(name.Value) {
			return
		}
		out = append(out, Diagnostic{
			Pos:      src.pos(name),
			Severity: SeverityError,
			Rule:     RuleHeaderNotToken,
			Message:  fmt.Sprintf("%s %q of %s is not an HTTP token", what, name.Value, where),
			Hint:     "a header name has only letters, digits and !#$%&'*+-.^_`|~, as RFC 9110 says: X-Request-Id, not X Request Id",
		})
	}
	for _, n := range []*yaml.Node{at.item, at.op} {
		_, params := mappingEntry(n, "parameters")
		if params == nil || params.Kind != yaml.SequenceNode {
			continue
		}
		for _, p := range params.Content {
			src, p := l.follow(at.src, p)
			if _, in := mappingEntry(p, "in"); in == nil || in.Value != "header" {
				continue
			}
			if _, name := mappingEntry(p, "name"); name != nil && name.Kind == yaml.ScalarNode {
				bad(src, name, "the header parameter")
			}
		}
	}
	_, responses := mappingEntry(at.op, "responses")
	for i := 0; responses != nil && responses.Kind == yaml.MappingNode && i+1 < len(responses.Content); i += 2 {
		src, r := l.follow(at.src, responses.Content[i+1])
		_, headers := mappingEntry(r, "headers")
		for j := 0; headers != nil && headers.Kind == yaml.MappingNode && j+1 < len(headers.Content); j += 2 {
			bad(src, headers.Content[j], "the response "+responses.Content[i].Value+" header")
		}
	}
	return out
}

// httpToken reports whether s is an HTTP token (RFC 9110, section 5.6.2):
// one or more visible ASCII characters other than the delimiters.
func httpToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c < 0x80 && c > ' ' && c != 0x7f && !isDelimiter(c):
		default:
			return false
		}
	}
	return true
}

// isDelimiter reports whether c is one of RFC 9110's delimiters, which a
// token may not hold: DQUOTE and "(),/:;<=>?@[\]{}".
func isDelimiter(c byte) bool {
	switch c {
	case '"', '(', ')', ',', '/', ':', ';', '<', '=', '>', '?', '@', '[', '\\', ']', '{', '}':
		return true
	}
	return false
}
