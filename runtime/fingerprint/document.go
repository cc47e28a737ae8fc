package fingerprint

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, so that hostile input
// cannot drive the recursive parser and renderer arbitrarily deep.
const maxDepth = 1000

type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindNumber
	kindString
	kindArray
	kindObject
)

// Node flags set by a Spec before rendering.
const (
	flagExcluded uint8 = 1 << iota
	flagUnordered
)

// span addresses bytes in document.text.
type span struct{ off, n uint32 }

// node is one JSON value. Containers keep their children contiguously in
// document.nodes[off:off+n] (object members sorted in canonical order);
// strings keep their decoded bytes in document.text[off:off+n].
type node struct {
	kind  kind
	flags uint8
	name  span // the member name, when the node is an object member
	off   uint32
	n     uint32
	num   float64
}

// document is a parsed JSON text. Parsing appends a container's children to
// a scratch stack and moves them to nodes as one block when the container
// closes, so a whole document costs a few reusable slices, not a map per
// object.
type document struct {
	nodes []node
	text  []byte
	stack []node
	root  node
	out   []byte // rendering buffer
	tmp   []byte // scratch for sorting unordered arrays
	spans []span // element boundaries of unordered arrays being rendered
}

var documents = sync.Pool{New: func() any { return new(document) }}

func getDocument() *document { return documents.Get().(*document) }

// poolLimit bounds the bytes a pooled document or Writer may keep, so one
// huge input does not pin its buffers for the life of the process.
const poolLimit = MaxBodySize

// putDocument returns d to the pool unless a huge input made it huge.
func putDocument(d *document) {
	if cap(d.text) > poolLimit || cap(d.out) > poolLimit || cap(d.tmp) > poolLimit ||
		cap(d.nodes)+cap(d.stack) > poolLimit/32 { // a node is 32 bytes
		return
	}
	documents.Put(d)
}

func (d *document) str(s span) []byte { return d.text[s.off : s.off+s.n] }

func (d *document) children(n *node) []node { return d.nodes[n.off : n.off+n.n] }

// parse reads src into d, replacing what d held.
func (d *document) parse(src []byte) error {
	if uint64(len(src)) >= math.MaxUint32 {
		return fmt.Errorf("%w: text of %d bytes is too long", ErrInvalidJSON, len(src))
	}
	d.nodes, d.text, d.stack = d.nodes[:0], d.text[:0], d.stack[:0]
	p := parser{src: src, d: d}
	p.skipSpace()
	if err := p.value(); err != nil {
		return err
	}
	p.skipSpace()
	if p.pos != len(src) {
		return p.errorf("unexpected %q after the top-level value", src[p.pos])
	}
	d.root = d.stack[0]
	d.stack = d.stack[:0]
	return nil
}

type parser struct {
	src   []byte
	pos   int
	depth int
	d     *document
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: offset %d: %s", ErrInvalidJSON, p.pos, fmt.Sprintf(format, args...))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() error {
	if p.pos >= len(p.src) {
		return p.errorf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return err
		}
		p.d.stack = append(p.d.stack, node{kind: kindString, off: s.off, n: s.n})
		return nil
	case c == 't':
		return p.literal("true", kindTrue)
	case c == 'f':
		return p.literal("false", kindFalse)
	case c == 'n':
		return p.literal("null", kindNull)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return p.errorf("unexpected %q", c)
	}
}

func (p *parser) literal(word string, k kind) error {
	if len(p.src)-p.pos < len(word) || string(p.src[p.pos:p.pos+len(word)]) != word {
		return p.errorf("invalid literal")
	}
	p.pos += len(word)
	p.d.stack = append(p.d.stack, node{kind: k})
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("nesting deeper than %d", maxDepth)
	}
	p.pos++
	p.skipSpace()
	return nil
}

// closeContainer moves the children above base on the stack into nodes as
// one block and leaves the container itself on the stack.
func (p *parser) closeContainer(base int, k kind) {
	d := p.d
	off := uint32(len(d.nodes))
	d.nodes = append(d.nodes, d.stack[base:]...)
	n := uint32(len(d.stack) - base)
	d.stack = append(d.stack[:base], node{kind: k, off: off, n: n})
	p.depth--
}

func (p *parser) array() error {
	if err := p.enter(); err != nil {
		return err
	}
	base := len(p.d.stack)
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.closeContainer(base, kindArray)
		return nil
	}
	for {
		if err := p.value(); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of input in array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			p.closeContainer(base, kindArray)
			return nil
		default:
			return p.errorf("expected ',' or ']', found %q", p.src[p.pos])
		}
	}
}

func (p *parser) object() error {
	if err := p.enter(); err != nil {
		return err
	}
	base := len(p.d.stack)
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.closeContainer(base, kindObject)
		return nil
	}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.errorf("expected a member name")
		}
		name, err := p.string()
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.errorf("expected ':' after a member name")
		}
		p.pos++
		p.skipSpace()
		if err := p.value(); err != nil {
			return err
		}
		p.d.stack[len(p.d.stack)-1].name = name
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of input in object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			if err := p.sortMembers(p.d.stack[base:]); err != nil {
				return err
			}
			p.closeContainer(base, kindObject)
			return nil
		default:
			return p.errorf("expected ',' or '}', found %q", p.src[p.pos])
		}
	}
}

// sortMembers puts members in canonical order and rejects duplicate names.
func (p *parser) sortMembers(members []node) error {
	d := p.d
	slices.SortFunc(members, func(a, b node) int {
		return compareUTF16(d.str(a.name), d.str(b.name))
	})
	for i := 1; i < len(members); i++ {
		if string(d.str(members[i-1].name)) == string(d.str(members[i].name)) {
			return p.errorf("duplicate member name %q", d.str(members[i].name))
		}
	}
	return nil
}

// string decodes the string starting at the opening quote into d.text.
func (p *parser) string() (span, error) {
	d := p.d
	p.pos++
	start := len(d.text)
	for {
		i := p.pos
		for i < len(p.src) {
			c := p.src[i]
			if c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
				break
			}
			i++
		}
		d.text = append(d.text, p.src[p.pos:i]...)
		p.pos = i
		if i >= len(p.src) {
			return span{}, p.errorf("unterminated string")
		}
		switch c := p.src[i]; {
		case c == '"':
			p.pos++
			return span{off: uint32(start), n: uint32(len(d.text) - start)}, nil
		case c == '\\':
			if err := p.escape(); err != nil {
				return span{}, err
			}
		case c < 0x20:
			return span{}, p.errorf("control character %#02x in string", c)
		default:
			r, size := utf8.DecodeRune(p.src[i:])
			if r == utf8.RuneError && size == 1 {
				return span{}, p.errorf("invalid UTF-8")
			}
			d.text = append(d.text, p.src[i:i+size]...)
			p.pos += size
		}
	}
}

// escape decodes the escape sequence at the backslash.
func (p *parser) escape() error {
	if p.pos+1 >= len(p.src) {
		return p.errorf("unterminated escape")
	}
	var b byte
	switch p.src[p.pos+1] {
	case '"':
		b = '"'
	case '\\':
		b = '\\'
	case '/':
		b = '/'
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
		return p.unicodeEscape()
	default:
		return p.errorf("invalid escape \\%c", p.src[p.pos+1])
	}
	p.d.text = append(p.d.text, b)
	p.pos += 2
	return nil
}

func (p *parser) unicodeEscape() error {
	r, ok := p.hex4(p.pos)
	if !ok {
		return p.errorf("invalid \\u escape")
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return p.errorf("lone low surrogate \\u%04x", r)
	case r >= 0xD800 && r <= 0xDBFF:
		lo, ok := p.hex4(p.pos + 6)
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return p.errorf("lone high surrogate \\u%04x", r)
		}
		r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
		p.pos += 6
	}
	p.d.text = utf8.AppendRune(p.d.text, r)
	p.pos += 6
	return nil
}

// hex4 reads the four hex digits of a \u escape whose backslash is at i.
func (p *parser) hex4(i int) (rune, bool) {
	if i+6 > len(p.src) || p.src[i] != '\\' || p.src[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range p.src[i+2 : i+6] {
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

// number validates the RFC 8259 number grammar and reads the literal as an
// IEEE-754 double, so that 1e2, 100, 100.0 and 1E+2 become the same value.
func (p *parser) number() error {
	src := p.src
	start := p.pos
	i := p.pos
	if src[i] == '-' {
		i++
	}
	digitsStart := i
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && src[i] >= '1' && src[i] <= '9':
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return p.errorf("invalid number")
	}
	integer := true
	if i < len(src) && src[i] == '.' {
		integer = false
		i++
		if i >= len(src) || src[i] < '0' || src[i] > '9' {
			p.pos = i
			return p.errorf("invalid number: no digit after '.'")
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
			p.pos = i
			return p.errorf("invalid number: no digit in exponent")
		}
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
		}
	}
	var f float64
	if integer && i-digitsStart <= 15 {
		// Exact in a double: no rounding to do.
		var v int64
		for _, c := range src[digitsStart:i] {
			v = v*10 + int64(c-'0')
		}
		f = float64(v)
		if start != digitsStart {
			f = -f
		}
	} else {
		var err error
		f, err = strconv.ParseFloat(string(src[start:i]), 64)
		if err != nil {
			p.pos = start
			return p.errorf("number %s is outside the range of a double", src[start:i])
		}
	}
	p.pos = i
	p.d.stack = append(p.d.stack, node{kind: kindNumber, num: f})
	return nil
}
