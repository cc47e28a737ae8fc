package fingerprint

import (
	"fmt"
	"strings"
)

// wildcard is the pointer token that stands for every element or member in
// Exclude and Unordered pointers.
const wildcard = "*"

// parsePointer splits an RFC 6901 JSON pointer into unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("%w: pointer %q does not start with '/'", ErrInvalidSpec, p)
	}
	tokens := strings.Split(p[1:], "/")
	for i, t := range tokens {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("%w: pointer %q has an escape other than ~0 or ~1", ErrInvalidSpec, p)
			}
			if t[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		tokens[i] = b.String()
	}
	return tokens, nil
}

// arrayIndex reads an RFC 6901 array index: "0" or digits without a leading
// zero. "-" and anything else address no element.
func arrayIndex(t string, n uint32) (uint32, bool) {
	if t == "" || len(t) > 10 || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	var i uint64
	for j := 0; j < len(t); j++ {
		c := t[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + uint64(c-'0')
	}
	if i >= uint64(n) {
		return 0, false
	}
	return uint32(i), true
}

// child returns the member or element of n that token t addresses, or nil.
func (d *document) child(n *node, t string) *node {
	switch n.kind {
	case kindObject:
		members := d.children(n)
		lo, hi := 0, len(members)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			switch c := compareUTF16(d.str(members[m].name), t); {
			case c == 0:
				return &d.nodes[n.off+uint32(m)]
			case c < 0:
				lo = m + 1
			default:
				hi = m
			}
		}
	case kindArray:
		if i, ok := arrayIndex(t, n.n); ok {
			return &d.nodes[n.off+i]
		}
	}
	return nil
}

// mark sets flag on every node that tokens address from n, expanding
// wildcards.
func (d *document) mark(n *node, tokens []string, flag uint8) {
	if len(tokens) == 0 {
		n.flags |= flag
		return
	}
	if tokens[0] == wildcard && (n.kind == kindObject || n.kind == kindArray) {
		for i := range d.children(n) {
			d.mark(&d.nodes[n.off+uint32(i)], tokens[1:], flag)
		}
		return
	}
	if c := d.child(n, tokens[0]); c != nil {
		d.mark(c, tokens[1:], flag)
	}
}

// resolve returns the node that tokens address from n, or nil when there is
// none or the path passes through an excluded node.
func (d *document) resolve(n *node, tokens []string) *node {
	for _, t := range tokens {
		if n.flags&flagExcluded != 0 {
			return nil
		}
		if n = d.child(n, t); n == nil {
			return nil
		}
	}
	if n.flags&flagExcluded != 0 {
		return nil
	}
	return n
}
