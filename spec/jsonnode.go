package spec

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// parseJSON parses a JSON document into the node tree the YAML parser
// would build for it: the same kinds, tags, styles, values, lines and
// columns (columns count characters, as YAML's do). It is the fast path
// for JSON specs, where a YAML parser spends most of a load, and it
// reports ok false for anything it does not take on (invalid JSON, a byte
// order mark, invalid UTF-8, nesting deeper than maxJSONDepth), which the
// caller then hands to the YAML parser for its verdict and its error
// message.
//
// Where JSON and YAML read a text differently, this parser keeps to JSON:
// an escaped UTF-16 surrogate pair is one character, and U+0085, U+2028
// and U+2029 inside a string are characters, not line breaks.
func parseJSON(data []byte) (root *yaml.Node, ok bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	p := &jsonParser{data: data, line: 1, col: 1}
	p.space()
	n := p.value(0)
	if n == nil {
		return nil, false
	}
	p.space()
	if p.pos != len(data) {
		return nil, false
	}
	return n, true
}

// maxJSONDepth bounds nesting, so a hostile document cannot exhaust the
// stack; the YAML parser reports such a document.
const maxJSONDepth = 1000

// jsonParser is the state of one parseJSON: the input, the read offset and
// the place of the offset as a line and the start of that line, plus the
// last column computed on the line, so columns cost linear time even on a
// document written on one line.
type jsonParser struct {
	data      []byte
	pos       int
	line      int
	lineStart int
	colPos    int
	col       int
	slab      []yaml.Node
}

// node returns a fresh node at the current offset, allocated from a slab
// so a large document does not pay one allocation per node.
func (p *jsonParser) node(kind yaml.Kind, tag string, style yaml.Style) *yaml.Node {
	if len(p.slab) == 0 {
		p.slab = make([]yaml.Node, 512)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	n.Kind, n.Tag, n.Style = kind, tag, style
	n.Line, n.Column = p.line, p.column()
	return n
}

// column is the one-based character column of the current offset.
func (p *jsonParser) column() int {
	if p.colPos < p.lineStart {
		p.colPos, p.col = p.lineStart, 1
	}
	for p.colPos < p.pos {
		if p.data[p.colPos] < utf8.RuneSelf {
			p.colPos++
		} else {
			_, size := utf8.DecodeRune(p.data[p.colPos:])
			p.colPos += size
		}
		p.col++
	}
	return p.col
}

// space skips JSON whitespace, counting line breaks as YAML does: \n,
// \r\n and a lone \r each end a line.
func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t':
			p.pos++
		case '\n':
			p.pos++
			p.newLine()
		case '\r':
			p.pos++
			if p.pos < len(p.data) && p.data[p.pos] == '\n' {
				p.pos++
			}
			p.newLine()
		default:
			return
		}
	}
}

// newLine records that a line starts at the current offset.
func (p *jsonParser) newLine() {
	p.line++
	p.lineStart = p.pos
}

// value parses the value at the current offset, or returns nil.
func (p *jsonParser) value(depth int) *yaml.Node {
	if p.pos >= len(p.data) || depth > maxJSONDepth {
		return nil
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		n := p.node(yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle)
		s, ok := p.str()
		if !ok {
			return nil
		}
		n.Value = s
		return n
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return p.literal()
	}
}

// object parses an object; the offset is at its '{'.
func (p *jsonParser) object(depth int) *yaml.Node {
	n := p.node(yaml.MappingNode, "!!map", yaml.FlowStyle)
	for more := p.open('}'); more; {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil
		}
		k := p.value(depth + 1)
		if k == nil {
			return nil
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil
		}
		p.pos++
		p.space()
		v := p.value(depth + 1)
		if v == nil {
			return nil
		}
		n.Content = append(n.Content, k, v)
		var ok bool
		if more, ok = p.next('}'); !ok {
			return nil
		}
	}
	return n
}

// array parses an array; the offset is at its '['.
func (p *jsonParser) array(depth int) *yaml.Node {
	n := p.node(yaml.SequenceNode, "!!seq", yaml.FlowStyle)
	for more := p.open(']'); more; {
		v := p.value(depth + 1)
		if v == nil {
			return nil
		}
		n.Content = append(n.Content, v)
		var ok bool
		if more, ok = p.next(']'); !ok {
			return nil
		}
	}
	return n
}

// open consumes the opening bracket at the offset and the white space
// after it, and the closing bracket of an empty container; it reports
// whether a member follows.
func (p *jsonParser) open(closing byte) bool {
	p.pos++
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == closing {
		p.pos++
		return false
	}
	return true
}

// next consumes what follows a member: a comma, or the closing bracket.
// It reports whether another member follows, and ok false for anything
// else.
func (p *jsonParser) next(closing byte) (more, ok bool) {
	p.space()
	if p.pos >= len(p.data) {
		return false, false
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		p.space()
		return true, true
	case closing:
		p.pos++
		return false, true
	}
	return false, false
}

// literal parses true, false or null.
func (p *jsonParser) literal() *yaml.Node {
	for _, lit := range [...]struct{ text, tag string }{{"true", "!!bool"}, {"false", "!!bool"}, {"null", "!!null"}} {
		if len(p.data)-p.pos >= len(lit.text) && string(p.data[p.pos:p.pos+len(lit.text)]) == lit.text {
			n := p.node(yaml.ScalarNode, lit.tag, 0)
			n.Value = lit.text
			p.pos += len(lit.text)
			return n
		}
	}
	return nil
}

// number parses a JSON number. The YAML parser reads an integer that
// fits 64 bits (signed, or unsigned when not negative) as !!int, except
// -0, which it keeps a float so the sign survives; anything else as
// !!float when it is in a float64's range, else as !!str.
func (p *jsonParser) number() *yaml.Node {
	n := p.node(yaml.ScalarNode, "!!int", 0)
	start := p.pos
	float := false
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.pos < len(p.data) && p.data[p.pos] >= '1' && p.data[p.pos] <= '9':
		p.digits()
	default:
		return nil
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		float = true
		p.pos++
		if !p.digits() {
			return nil
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		float = true
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			return nil
		}
	}
	n.Value = string(p.data[start:p.pos])
	if float || n.Value == "-0" || !fits64(n.Value) {
		n.Tag = "!!float"
		if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
			n.Tag = "!!str"
		}
	}
	return n
}

// fits64 reports whether the integer text fits an int64, or a uint64
// when it is not negative.
func fits64(text string) bool {
	if _, err := strconv.ParseInt(text, 10, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(text, 10, 64)
	return err == nil
}

// digits skips one or more decimal digits and reports whether there was
// one.
func (p *jsonParser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// str parses a string, its offset at the opening quote, and returns its
// value. A lone surrogate escape becomes U+FFFD.
func (p *jsonParser) str() (string, bool) {
	p.pos++
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		p.pos++
	}
	buf := append([]byte(nil), p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.data) {
			return "", false
		}
		esc := p.data[p.pos+1]
		p.pos += 2
		switch esc {
		case '"', '\\', '/':
			buf = append(buf, esc)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hexRune()
			if !ok {
				return "", false
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hexRune reads the four hex digits after \u, and the low half that
// follows a high surrogate, and returns the character they name.
func (p *jsonParser) hexRune() (rune, bool) {
	hi, ok := p.hex()
	if !ok {
		return 0, false
	}
	if !utf16.IsSurrogate(hi) {
		return hi, true
	}
	if hi <= 0xDBFF && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
		save := p.pos
		p.pos += 2
		if lo, ok := p.hex(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return utf16.DecodeRune(hi, lo), true
		}
		p.pos = save
	}
	return utf8.RuneError, true
}

// hex reads four hexadecimal digits.
func (p *jsonParser) hex() (rune, bool) {
	if len(p.data)-p.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}
