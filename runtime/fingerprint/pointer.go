package fingerprint

import (
	"fmt"

	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// wildcard is the pointer token that stands for every element or member in
// Exclude and Unordered pointers.
const wildcard = "*"

// Pointers are walked as strings, token by token, with runtime/jsonpointer,
// so that fingerprinting allocates nothing for them; only a token with a ~
// escape is copied. The wildcard is this package's extension of RFC 6901.

// checkPointer reports whether p is an RFC 6901 JSON pointer, and whether it
// has a wildcard token when wildcards are not allowed.
func checkPointer(p string, wildcards bool) error {
	if err := jsonpointer.Check(p); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	if !wildcards {
		for rest := p; rest != ""; {
			var t string
			if t, rest = jsonpointer.Next(rest); t == wildcard {
				return fmt.Errorf("%w: include pointer %q has a wildcard", ErrInvalidSpec, p)
			}
		}
	}
	return nil
}

// arrayIndex reads an RFC 6901 array index below n: "0" or digits without a
// leading zero. "-" and anything else address no element.
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

// mark sets flag on every node that pointer p addresses from n, expanding
// wildcards.
func (d *document) mark(n *node, p string, flag uint8) {
	if p == "" {
		n.flags |= flag
		return
	}
	t, rest := jsonpointer.Next(p)
	if t == wildcard && (n.kind == kindObject || n.kind == kindArray) {
		for i := range d.children(n) {
			d.mark(&d.nodes[n.off+uint32(i)], rest, flag)
		}
		return
	}
	if c := d.child(n, t); c != nil {
		d.mark(c, rest, flag)
	}
}

// resolve returns the node that pointer p addresses from n, or nil when
// there is none or the path passes through an excluded node.
func (d *document) resolve(n *node, p string) *node {
	for p != "" {
		if n.flags&flagExcluded != 0 {
			return nil
		}
		var t string
		t, p = jsonpointer.Next(p)
		if n = d.child(n, t); n == nil {
			return nil
		}
	}
	if n.flags&flagExcluded != 0 {
		return nil
	}
	return n
}
