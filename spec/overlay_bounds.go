package spec

import (
	"go.yaml.in/yaml/v4"
)

// Bounds on what overlays add
//
// An overlay is as untrusted as the spec, and an action costs far more
// than its text: Overlay 1.1's copy: "$" puts a copy of the whole document
// into every target, so six such actions of 478 bytes grew a document past
// 1.85 GB before anything validated it. Every node an update or a copy
// inserts is counted before it is inserted, aliases expanded as the copy
// expands them: all the overlays together may insert at most as many
// nodes as the spec and the overlays have as written, or
// minOverlayBudget when that is more, and nothing they insert may nest
// the document deeper than maxDepth. Inserted nodes are real copies,
// unlike the aliases that bounds.go counts, so the budget does not let
// them grow tenfold; real overlays insert a contract block of a few dozen
// nodes per operation, far fewer than the operation itself has. The action that would cross a bound is an
// error at its update or copy, and no later action is applied.

// minOverlayBudget is how many nodes overlays may insert into any
// document, however small: a contract block of 50 nodes on 200
// operations.
const minOverlayBudget = 10_000

// overlayBudget counts what the overlays of one load insert.
type overlayBudget struct {
	// written is how many nodes the spec and the overlays read so far
	// have as written; inserted how many the overlays have inserted.
	written, inserted int
}

// limit is how many nodes the overlays may insert in all.
func (b *overlayBudget) limit() int { return max(minOverlayBudget, b.written) }

// fits reports whether value may be merged into the target t: within the
// budget and the nesting limit. When it may not, it records the error at
// the overlay node at (the update, or the copy query) and the run stops.
func (r *overlayRun) fits(t target, value, at *yaml.Node, path string) bool {
	b := &r.l.overlayBudget
	left := b.limit() - b.inserted
	size, height := measureValue(value, left)
	// The target is at level len(t.path)+1 (the root is level 1): value
	// takes its place, or is merged into it, or is appended to it as an
	// item one level below.
	depth := len(t.path) + height
	if t.node.Kind == yaml.SequenceNode {
		depth++
	}
	if height > 0 && depth > maxDepth {
		r.fail(at, path, "the value for target %s would nest the document %d levels deep: idemgen refuses documents deeper than %d levels of objects and arrays", t.path, depth, maxDepth)
		r.stopped = true
		return false
	}
	if size > left {
		r.fail(at, path, "target %s would grow the document beyond the %d nodes overlays may add (the spec and its overlays have %d as written): "+
			"idemgen refuses overlays that grow it this much (update or copy a smaller value, or target fewer places)", t.path, b.limit(), b.written)
		r.stopped = true
		return false
	}
	b.inserted += size
	return true
}

// measureValue counts the nodes of n with aliases expanded, as clone
// copies them, and how many levels of objects and arrays it nests. It
// stops counting once beyond limit, so it costs at most limit steps
// however far the aliases expand.
func measureValue(n *yaml.Node, limit int) (size, height int) {
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		n = deref(n)
		if n == nil || size > limit {
			return
		}
		size++
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			height = max(height, depth)
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 1)
	return size, height
}
