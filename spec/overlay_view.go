package spec

import (
	"strconv"

	"github.com/theory/jsonpath"
	jpspec "github.com/theory/jsonpath/spec"
	"go.yaml.in/yaml/v4"
)

// docView is the JSON value of a document that overlay targets are
// evaluated over: objects as map[string]any, lists as []any, and scalars as
// string, int64, float64, bool or nil. A path item kept behind a $ref
// (possibly in another file) is seen where it is referenced, as the old
// path-only targets saw it, and one map stands for it wherever it is
// referenced. Overlays change only operations' contract blocks and the
// root's defaults (overlay_scope.go), so after each change the view is
// brought up to date by rebuilding that operation or that block alone.
type docView struct {
	l     *loader
	root  *source
	value map[string]any
	// items holds the view of each path item by the node that holds its
	// operations.
	items map[*yaml.Node]map[string]any
}

// newView builds the view of the document rooted in root.
func (l *loader) newView(root *source) *docView {
	v := &docView{l: l, root: root, value: map[string]any{}, items: map[*yaml.Node]map[string]any{}}
	n := root.root
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i].Value, deref(n.Content[i+1])
		if _, seen := v.value[k]; seen {
			continue // the first of duplicate keys counts, as in mappingEntry
		}
		if !isSection(k) || val.Kind != yaml.MappingNode {
			v.value[k] = jsonValue(val)
			continue
		}
		section := make(map[string]any, len(val.Content)/2)
		for j := 0; j+1 < len(val.Content); j += 2 {
			_, item := l.resolvePathItem(root, val.Content[j+1])
			section[val.Content[j].Value] = v.pathItem(item)
		}
		v.value[k] = section
	}
	return v
}

// isSection reports whether the root key k holds path items.
func isSection(k string) bool { return k == "paths" || k == "webhooks" }

// pathItem is the view of the path item node n, shared by every reference.
func (v *docView) pathItem(n *yaml.Node) any {
	if m, ok := v.items[n]; ok {
		return m
	}
	val := jsonValue(n)
	if m, ok := val.(map[string]any); ok {
		v.items[n] = m
	}
	return val
}

// jsonValue is the JSON value of node n.
func jsonValue(n *yaml.Node) any {
	n = deref(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if _, seen := m[n.Content[i].Value]; !seen {
				m[n.Content[i].Value] = jsonValue(n.Content[i+1])
			}
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = jsonValue(c)
		}
		return l
	case yaml.ScalarNode:
		return scalarValue(n)
	}
	return nil
}

// scalarValue is the JSON value of a scalar: by its YAML tag, a string
// when the text does not read as the tag says.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		if b, err := strconv.ParseBool(n.Value); err == nil {
			return b
		}
	case "!!int":
		if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	}
	return n.Value
}

// selectPaths returns the normalized paths of the nodes query selects, in
// the order it selects them, each once.
func (v *docView) selectPaths(query *jsonpath.Path) []normalizedPath {
	var out []normalizedPath
	for p := range query.SelectLocated(v.value).Deduplicate().Paths() {
		out = append(out, p)
	}
	return out
}

// target is one node an action acts on.
type target struct {
	// src is the file that holds node.
	src  *source
	node *yaml.Node
	// parent is the mapping or list that holds node, and at the index of
	// node in parent.Content; parent is nil for the root.
	parent *yaml.Node
	at     int
	path   normalizedPath
}

// locate finds the node at the normalized path p, following path item
// $refs as the view does.
func (v *docView) locate(p normalizedPath) (target, bool) {
	t := target{src: v.root, node: v.root.root, path: p}
	for i, sel := range p {
		n := t.node
		switch s := sel.(type) {
		case jpspec.Name:
			j := keyIndex(n, string(s))
			if n.Kind != yaml.MappingNode || j < 0 {
				return target{}, false
			}
			t.parent, t.at = n, j+1
		case jpspec.Index:
			if n.Kind != yaml.SequenceNode || int(s) < 0 || int(s) >= len(n.Content) {
				return target{}, false
			}
			t.parent, t.at = n, int(s)
		default:
			return target{}, false
		}
		t.node = deref(t.parent.Content[t.at])
		if i == 1 && isSection(string(p[0].(jpspec.Name))) {
			t.src, t.node = v.l.resolvePathItem(t.src, t.node)
		}
	}
	return t, true
}

// refresh brings the view up to date after an action changed the target
// t in scope s: the operation that holds it, or the defaults block.
func (v *docView) refresh(s scope, t target) {
	switch s.kind {
	case scopeRoot, scopeDefaults:
		if _, n := mappingEntry(v.root.root, "x-idempotency-defaults"); n != nil {
			v.value["x-idempotency-defaults"] = jsonValue(n)
		} else {
			delete(v.value, "x-idempotency-defaults")
		}
	case scopeOperation, scopeContract:
		item, ok := v.locate(t.path[:2])
		op, found := v.locate(t.path[:3])
		if m := v.items[item.node]; ok && found && m != nil {
			m[string(t.path[2].(jpspec.Name))] = jsonValue(op.node)
		}
	}
}

// keyIndex returns the index in m.Content of key, or -1.
func keyIndex(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}
