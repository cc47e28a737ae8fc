package fingerprint

import (
	"bytes"
	"slices"
)

// Canonicalize returns the RFC 8785 (JCS) canonical form of the JSON text
// src. Errors wrap [ErrInvalidJSON]; a leading byte order mark is one, as
// I-JSON forbids it.
func Canonicalize(src []byte) ([]byte, error) {
	d := getDocument()
	defer putDocument(d)
	if err := d.parse(src); err != nil {
		return nil, err
	}
	d.out = d.appendValue(d.out[:0], &d.root)
	return bytes.Clone(d.out), nil
}

// Validate reports whether src is a JSON text that [Canonicalize] and
// [Spec.Sum] accept; its errors wrap [ErrInvalidJSON]. Call it on a raw body
// before decoding it with a more lenient decoder.
func Validate(src []byte) error {
	d := getDocument()
	defer putDocument(d)
	return d.parse(src)
}

// appendValue renders n canonically, leaving out excluded nodes and sorting
// unordered arrays.
func (d *document) appendValue(dst []byte, n *node) []byte {
	switch n.kind {
	case kindNull:
		return append(dst, "null"...)
	case kindFalse:
		return append(dst, "false"...)
	case kindTrue:
		return append(dst, "true"...)
	case kindNumber:
		return appendNumber(dst, n.num)
	case kindString:
		return appendString(dst, d.text[n.off:n.off+n.n])
	case kindArray:
		if n.flags&flagUnordered != 0 {
			return d.appendUnordered(dst, n)
		}
		dst = append(dst, '[')
		first := true
		for i := range d.children(n) {
			c := &d.nodes[n.off+uint32(i)]
			if c.flags&flagExcluded != 0 {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = d.appendValue(dst, c)
		}
		return append(dst, ']')
	default:
		dst = append(dst, '{')
		first := true
		for i := range d.children(n) {
			c := &d.nodes[n.off+uint32(i)]
			if c.flags&flagExcluded != 0 {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendString(dst, d.str(c.name))
			dst = append(dst, ':')
			dst = d.appendValue(dst, c)
		}
		return append(dst, '}')
	}
}

// appendUnordered renders the elements of n one after the other, then
// rewrites them as an array sorted by their canonical bytes.
func (d *document) appendUnordered(dst []byte, n *node) []byte {
	start := len(dst)
	base := len(d.spans)
	for i := range d.children(n) {
		c := &d.nodes[n.off+uint32(i)]
		if c.flags&flagExcluded != 0 {
			continue
		}
		off := len(dst)
		dst = d.appendValue(dst, c)
		d.spans = append(d.spans, span{off: uint32(off - start), n: uint32(len(dst) - off)})
	}
	dst, d.tmp = sortElements(dst, start, d.spans[base:], d.tmp)
	d.spans = d.spans[:base]
	return dst
}

// sortElements takes the elements written back to back in dst[start:], at
// elems relative to start, and rewrites that region as a JSON array of them
// in byte order. tmp is scratch space, returned for reuse.
func sortElements(dst []byte, start int, elems []span, tmp []byte) ([]byte, []byte) {
	tmp = append(tmp[:0], dst[start:]...)
	slices.SortFunc(elems, func(a, b span) int {
		return bytes.Compare(tmp[a.off:a.off+a.n], tmp[b.off:b.off+b.n])
	})
	dst = append(dst[:start], '[')
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, tmp[e.off:e.off+e.n]...)
	}
	return append(dst, ']'), tmp
}
