package form

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Node is one key of a parsed form with everything below it: the values
// given for exactly this key, in order, the children addressed by a
// further bracketed segment, and, in a multipart body, the file parts of
// this name.
type Node struct {
	key      string
	values   []string
	children map[string]*Node
	files    []File
}

// Parse builds the tree of a form. Keys are taken in sorted order, so the
// tree does not depend on map iteration; the values of one key keep the
// order the client sent them in.
func Parse(v url.Values) (*Node, error) {
	root := &Node{}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		segs, err := splitKey(k)
		if err != nil {
			return nil, err
		}
		n := root
		for i, s := range segs {
			if s == "" {
				if i != len(segs)-1 {
					return nil, &Error{Key: k, Msg: "[] must come last in a key"}
				}
				break
			}
			n = n.child(s)
		}
		n.values = append(n.values, v[k]...)
	}
	return root, nil
}

// maxDepth bounds the segments of one key, so a hostile key cannot make
// the tree, and everything that walks it recursively, arbitrarily deep.
const maxDepth = 32

// splitKey splits a[b][0][] into a, b, 0 and the empty segment.
func splitKey(k string) ([]string, error) {
	name, rest, _ := strings.Cut(k, "[")
	if name == "" {
		return nil, &Error{Key: k, Msg: "key has no name"}
	}
	segs := []string{name}
	if len(k) == len(name) {
		return segs, nil
	}
	rest = "[" + rest
	for rest != "" {
		if rest[0] != '[' {
			return nil, &Error{Key: k, Msg: "unexpected " + strconv.Quote(rest) + " after ]"}
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return nil, &Error{Key: k, Msg: "unclosed ["}
		}
		seg := rest[1:end]
		if strings.ContainsRune(seg, '[') {
			return nil, &Error{Key: k, Msg: "[ inside a segment"}
		}
		segs = append(segs, seg)
		if len(segs) > maxDepth {
			return nil, &Error{Key: k, Msg: "nested deeper than " + strconv.Itoa(maxDepth) + " levels"}
		}
		rest = rest[end+1:]
	}
	return segs, nil
}

// child returns the child named seg, making it when absent.
func (n *Node) child(seg string) *Node {
	if c, ok := n.children[seg]; ok {
		return c
	}
	if n.children == nil {
		n.children = map[string]*Node{}
	}
	c := &Node{key: n.childKey(seg)}
	n.children[seg] = c
	return c
}

// childKey is the key of the child seg as a client writes it.
func (n *Node) childKey(seg string) string {
	if n.key == "" {
		return seg
	}
	return n.key + "[" + seg + "]"
}

// Key returns the key of n as a client writes it, such as items[0][sku];
// empty for the root.
func (n *Node) Key() string { return n.key }

// Get returns the child named name, or nil when the form has no key below
// it.
func (n *Node) Get(name string) *Node {
	return n.children[name]
}

// Keys returns the names of the children of n in sorted order.
func (n *Node) Keys() []string {
	keys := make([]string, 0, len(n.children))
	for k := range n.children {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Elems returns the elements of n read as an array: its children with
// decimal index segments in index order, or, when it has none, one leaf
// per value (expand[]=a&expand[]=b, or expand=a&expand=b). A node with both,
// or with a child that is not an index, is an error.
func (n *Node) Elems() ([]*Node, error) {
	if err := n.textOnly(); err != nil {
		return nil, err
	}
	if len(n.children) == 0 {
		elems := make([]*Node, len(n.values))
		for i, v := range n.values {
			elems[i] = &Node{key: n.key + "[" + strconv.Itoa(i) + "]", values: []string{v}}
		}
		return elems, nil
	}
	if len(n.values) > 0 {
		return nil, n.errorf("mixes values with indexed keys")
	}
	type indexed struct {
		i int
		n *Node
	}
	elems := make([]indexed, 0, len(n.children))
	for seg, c := range n.children {
		i, ok := arrayIndex(seg)
		if !ok {
			return nil, n.firstNotIndex().errorf("want an array index")
		}
		elems = append(elems, indexed{i, c})
	}
	slices.SortFunc(elems, func(a, b indexed) int { return a.i - b.i })
	out := make([]*Node, len(elems))
	for i, e := range elems {
		out[i] = e.n
	}
	return out, nil
}

// arrayIndex reads seg as an array index: decimal, no sign, no leading
// zero.
func arrayIndex(seg string) (int, bool) {
	i, err := strconv.Atoi(seg)
	return i, err == nil && i >= 0 && strconv.Itoa(i) == seg
}

// firstNotIndex returns, of n's children whose segment is not an array
// index, the one with the least segment, so that a request's error names
// the same key each time whatever the map's order.
func (n *Node) firstNotIndex() *Node {
	var first string
	found := false
	for seg := range n.children {
		if _, ok := arrayIndex(seg); !ok && (!found || seg < first) {
			first, found = seg, true
		}
	}
	return n.children[first]
}

// leaf returns the single value of a node that has no children.
func (n *Node) leaf() (string, error) {
	switch {
	case len(n.files) > 0:
		return "", n.errorf("want a text value, got a file part")
	case len(n.children) > 0:
		return "", n.errorf("want a single value, got nested keys")
	case len(n.values) != 1:
		return "", n.errorf("want a single value, got " + strconv.Itoa(len(n.values)))
	}
	return n.values[0], nil
}

// textOnly refuses a node holding a file part where text values or nested
// keys are read.
func (n *Node) textOnly() error {
	if len(n.files) > 0 {
		return n.errorf("want text values, got a file part")
	}
	return nil
}

func (n *Node) errorf(msg string) error {
	return &Error{Key: n.key, Msg: msg}
}
