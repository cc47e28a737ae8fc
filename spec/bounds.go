package spec

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// Bounds on a parsed file
//
// A spec under review is untrusted input: CI runs check and generate on
// every pull request. Two shapes of YAML cost far more than their size.
// Aliases that name anchors holding aliases expand exponentially (a 1.6 KB
// "billion laughs" file is a billion nodes), and every consumer that
// follows them, kin-openapi's loader among them, pays for the expansion.
// Deep nesting makes the recursive walks over the tree and the generated
// code grow with the depth times the size. checkBounds refuses both right
// after a file is parsed, before anything walks it.

// maxDepth is how deeply the objects and arrays of a document may nest,
// aliases expanded. Real specs stay far below: the deepest of Stripe,
// Square, Adyen and Twilio nests 26 levels, and 128 levels leave room for
// about 60 levels of inline schemas (each is an object under properties).
const maxDepth = 128

// minAliasBudget and aliasGrowth set how many nodes a document may have
// with its aliases expanded: the larger of minAliasBudget and aliasGrowth
// times the nodes it has as written. A small file can reuse anchors
// freely; a large one can grow tenfold, where go-yaml's own decoder allows
// about a tenth.
const (
	minAliasBudget = 100_000
	aliasGrowth    = 10
)

// checkBounds refuses a parsed file that nests deeper than maxDepth or
// whose aliases expand beyond its budget, at the node where the limit is
// crossed. It follows each alias once, remembering the size and height of
// what it names, so it costs linear time however far the aliases expand.
func checkBounds(src *source) error {
	if src.root == nil {
		return nil
	}
	written := countNodes(src.root)
	b := &bounder{
		src:     src,
		written: written,
		budget:  max(minAliasBudget, aliasGrowth*written),
		sizes:   map[*yaml.Node]nodeMeasure{},
	}
	if _, err := b.measure(src.root, 1); err != nil {
		return err
	}
	return nil
}

// countNodes counts the nodes under n as written, aliases as one node
// each. The tree without its aliases is as large as the text allows, so
// this ends quickly whatever the aliases do.
func countNodes(n *yaml.Node) int {
	count := 1
	for _, c := range n.Content {
		count += countNodes(c)
	}
	return count
}

// nodeMeasure is what the walk knows of a node an alias names: the nodes
// under it with aliases expanded, and how many levels of objects and
// arrays it nests (0 for a scalar).
type nodeMeasure struct {
	size, height int
	// done is false while the walk is inside the node, so an alias to an
	// enclosing node is found.
	done bool
}

// bounder is the state of one checkBounds walk.
type bounder struct {
	src *source
	// written is how many nodes the file has as written.
	written int
	// budget is how many nodes the walk may visit with aliases expanded;
	// visited counts them.
	budget, visited int
	// sizes holds the measure of each anchored node, the only ones an
	// alias can name.
	sizes map[*yaml.Node]nodeMeasure
}

// measure walks n and returns its measure, or the error for the first
// limit crossed. depth is the level n is at when it is an object or an
// array: 1 for the root, one more for each object or array around it.
func (b *bounder) measure(n *yaml.Node, depth int) (nodeMeasure, error) {
	if n.Kind == yaml.AliasNode {
		return b.alias(n, depth)
	}
	collection := n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode
	if collection && depth > maxDepth {
		return nodeMeasure{}, &Error{Pos: b.src.pos(n), Msg: fmt.Sprintf("nested deeper than %d levels of objects and arrays: idemgen refuses deeper documents", maxDepth)}
	}
	b.visited++
	if n.Anchor != "" {
		b.sizes[n] = nodeMeasure{}
	}
	m := nodeMeasure{size: 1}
	if collection {
		m.height = 1
	}
	for _, c := range n.Content {
		cm, err := b.measure(c, depth+1)
		if err != nil {
			return nodeMeasure{}, err
		}
		m.size += cm.size
		m.height = max(m.height, cm.height+1)
	}
	m.done = true
	if n.Anchor != "" {
		b.sizes[n] = m
	}
	return m, nil
}

// alias measures the alias n at depth by what it names, which the walk
// has measured already (YAML defines an anchor before its aliases).
func (b *bounder) alias(n *yaml.Node, depth int) (nodeMeasure, error) {
	target := n.Alias
	m, ok := b.sizes[target]
	switch {
	case target == nil || !ok:
		return nodeMeasure{}, &Error{Pos: b.src.pos(n), Msg: fmt.Sprintf("alias *%s names no anchor", n.Value)}
	case !m.done:
		return nodeMeasure{}, &Error{Pos: b.src.pos(n), Msg: fmt.Sprintf("alias *%s is inside the node it names, so it never ends", n.Value)}
	case m.height > 0 && depth+m.height-1 > maxDepth:
		return nodeMeasure{}, &Error{Pos: b.src.pos(n), Msg: fmt.Sprintf("alias *%s nests the document deeper than %d levels of objects and arrays: idemgen refuses deeper documents", n.Value, maxDepth)}
	}
	b.visited += m.size
	if b.visited > b.budget {
		return nodeMeasure{}, &Error{Pos: b.src.pos(n), Msg: fmt.Sprintf("alias *%s expands the document beyond %d nodes (it has %d as written): idemgen refuses YAML whose aliases grow it this much", n.Value, b.budget, b.written)}
	}
	return m, nil
}
