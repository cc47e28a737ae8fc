package spec

import (
	"slices"

	"go.yaml.in/yaml/v4"
)

// merger merges the value of one update or copy into its targets as the
// Overlay standard says: an object into an object property by property, a
// list into a list by concatenation, a value into a list as one more item,
// and (Overlay 1.1) a value over a value. Every node it inserts is a copy,
// so one value merged into several targets is never shared between them.
type merger struct {
	run *overlayRun
	// origin names the file each inserted node came from.
	origin func(*yaml.Node) string
	// blame is the overlay node an error about a value node is reported
	// at: the node itself for an update, the copy query for a copy.
	blame func(*yaml.Node) *yaml.Node
	// path is the action's field path in the overlay, such as actions[2].
	path string
}

// merge merges value into the target t and reports whether it could.
func (m merger) merge(t target, value *yaml.Node) bool {
	value = deref(value)
	switch {
	case t.node.Kind == yaml.MappingNode && value.Kind == yaml.MappingNode:
		return m.mapping(t.node, value, t.path.String())
	case t.node.Kind == yaml.SequenceNode:
		t.node.Content = append(t.node.Content, m.clone(value))
		return true
	case t.node.Kind == yaml.ScalarNode && value.Kind == yaml.ScalarNode && m.run.copies && t.parent != nil:
		t.parent.Content[t.at] = m.clone(value)
		return true
	case t.node.Kind == yaml.MappingNode:
		m.run.fail(m.blame(value), m.path, "target %s is an object: want an object to merge into it, got %s", t.path, kindName(value))
	case m.run.copies:
		m.run.fail(m.blame(value), m.path, "target %s is %s: want a value such as a string to replace it, got %s", t.path, kindName(t.node), kindName(value))
	default:
		m.run.fail(m.blame(value), m.path, "target %s is %s: Overlay 1.0 updates only objects and lists (write overlay: 1.1.0 to replace a value)", t.path, kindName(t.node))
	}
	return false
}

// mapping merges the mapping src into the mapping dst, which is at where.
func (m merger) mapping(dst, src *yaml.Node, where string) bool {
	ok := true
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], deref(src.Content[i+1])
		j := keyIndex(dst, k.Value)
		if j < 0 {
			dst.Content = append(dst.Content, m.clone(k), m.clone(v))
			continue
		}
		old := deref(dst.Content[j+1])
		switch {
		case old.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			ok = m.mapping(old, v, where+"['"+k.Value+"']") && ok
		case old.Kind == yaml.SequenceNode && v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				old.Content = append(old.Content, m.clone(item))
			}
		case old.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode:
			dst.Content[j+1] = m.clone(v)
		default:
			m.run.fail(m.blame(v), m.path, "cannot merge %s into %s at %s['%s']: remove it first", kindName(v), kindName(old), where, k.Value)
			ok = false
		}
	}
	return ok
}

// clone deep-copies n, aliases resolved, recording the file each copied
// node came from.
func (m merger) clone(n *yaml.Node) *yaml.Node {
	return m.cloneDepth(n, 0)
}

// maxCloneDepth bounds the nesting clone copies, so an alias that contains
// itself ends.
const maxCloneDepth = 256

// cloneDepth is clone at nesting depth.
func (m merger) cloneDepth(n *yaml.Node, depth int) *yaml.Node {
	n = deref(n)
	c := *n
	c.Anchor, c.Alias, c.Content = "", nil, nil
	if depth < maxCloneDepth {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, child := range n.Content {
			c.Content[i] = m.cloneDepth(child, depth+1)
		}
	}
	m.run.l.overlayNodes[&c] = m.origin(n)
	return &c
}

// remove deletes the target t from the mapping or list that holds it.
func remove(t target) {
	if t.parent.Kind == yaml.MappingNode {
		t.parent.Content = slices.Delete(t.parent.Content, t.at-1, t.at+1)
		return
	}
	t.parent.Content = slices.Delete(t.parent.Content, t.at, t.at+1)
}
