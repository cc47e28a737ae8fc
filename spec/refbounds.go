package spec

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Bounds on references
//
// kin-openapi resolves $refs into one graph of schemas, and what walks
// that graph afterwards (the rules, the type planner, generated decoders)
// meets a target once for every path that reaches it. As with aliases
// (bounds.go), two shapes cost far more than their text. References that
// form a cycle (a file naming itself, as in self.yaml#/..., two files
// naming each other, a JSON pointer into an inline schema that holds the
// reference) expand without end. References that name one target twice
// per level double it at every level. A schema under components/schemas
// is different: it is planned once, by name, however many references reach
// it, and a recursive type is named there.
//
// checkRefGraph walks the document with every other reference expanded,
// before kin-openapi resolves anything, and refuses at the $ref that
// crosses the line: a cycle that passes through no schema under
// components/schemas, a document that references grow beyond the alias
// budget, and one that they nest deeper than maxDepth (each reference
// counts as a level). Each node is measured once and remembered, so the
// walk costs linear time however far the references expand. Values that
// are data, which kin-openapi does not resolve (example, examples,
// default, enum, const and x- extensions), are not walked.

// componentSchemasRef marks a reference to a schema under components/schemas,
// which the type planner and the rules plan once per reference text and
// which therefore ends a cycle. It is their test, on the text as written.
const componentSchemasRef = "#/components/schemas/"

// nameMaps are the keys whose value maps names to objects (properties,
// responses, ...): in such a map a key such as example or x-id is a name,
// and its value an object to walk.
var nameMaps = map[string]bool{
	"properties": true, "patternProperties": true, "dependentSchemas": true, "$defs": true, "definitions": true,
	"schemas": true, "responses": true, "parameters": true, "headers": true, "content": true, "links": true,
	"callbacks": true, "securitySchemes": true, "requestBodies": true, "paths": true, "webhooks": true,
	"pathItems": true, "encoding": true,
}

// dataKeys are the keys whose values are data, which kin-openapi does
// not resolve, outside a name map.
var dataKeys = map[string]bool{"example": true, "examples": true, "default": true, "enum": true, "const": true}

// refMeasure is what the walk knows of a node: its size with references
// (and aliases) expanded and how many levels of objects, arrays and
// references it nests.
type refMeasure struct {
	size, height int
	// done is false while the walk is inside the node, so a reference
	// back into it is found; entered is how many references were being
	// expanded when the walk entered it.
	done    bool
	entered int
}

// refStep is one reference being expanded: its value node and its file.
type refStep struct {
	src *source
	ref *yaml.Node
}

// walkKey is a node as the walk sees it: in a name map or not.
type walkKey struct {
	node  *yaml.Node
	names bool
}

// refWalk is the state of one checkRefGraph.
type refWalk struct {
	ctx     context.Context
	l       *loader
	measure map[walkKey]*refMeasure
	// stack holds the references being expanded, outermost first.
	stack []refStep
	// written counts the nodes of the files walked as written, sources
	// the files counted; visited counts the nodes walked with references
	// expanded, which may not exceed the budget.
	written, visited int
	sources          map[*source]bool
	// components holds each distinct component reference text met, and
	// queue the ones still to walk.
	components map[string]bool
	queue      []refStep
	errs       ErrorList
}

// checkRefGraph walks the document rooted in root and every file and,
// when allowed, URL its references reach, and refuses reference cycles
// that no component schema names and references that grow or nest the
// document beyond the bounds. The errors are positioned at the $refs.
func (l *loader) checkRefGraph(ctx context.Context, root *source) error {
	w := &refWalk{
		ctx: ctx, l: l,
		measure:    map[walkKey]*refMeasure{},
		sources:    map[*source]bool{},
		components: map[string]bool{},
	}
	for _, src := range l.sources {
		w.count(src)
	}
	if _, ok := w.walk(root, root.root, 1, false); !ok {
		return w.errs.errOrNil()
	}
	for len(w.queue) > 0 {
		step := w.queue[0]
		w.queue = w.queue[1:]
		if !w.follow(step.src, step.ref, 1) {
			break
		}
	}
	return w.errs.errOrNil()
}

// count adds the nodes of src as written to the budget's base, once.
func (w *refWalk) count(src *source) {
	if w.sources[src] || src.root == nil {
		return
	}
	w.sources[src] = true
	w.written += countNodes(src.root)
}

// budget is how many nodes the walk may visit: the alias budget of the
// files walked so far.
func (w *refWalk) budget() int { return max(minAliasBudget, aliasGrowth*w.written) }

// walk measures the node n of src at depth (levels of objects, arrays and
// references above it, 1 for the root); names says n is a name map. It
// returns false when a bound is crossed: the error is recorded and the
// walk ends.
func (w *refWalk) walk(src *source, n *yaml.Node, depth int, names bool) (refMeasure, bool) {
	n = deref(n)
	if n == nil {
		return refMeasure{}, true
	}
	key := walkKey{n, names}
	if m, ok := w.measure[key]; ok {
		return *m, w.reuse(src, n, *m, depth)
	}
	collection := n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode
	if collection && depth > maxDepth {
		w.fail(src, n, fmt.Sprintf("nests the document deeper than %d levels of objects, arrays and references: idemgen refuses deeper documents", maxDepth))
		return refMeasure{}, false
	}
	if w.visited++; w.visited > w.budget() {
		w.overBudget(src, n)
		return refMeasure{}, false
	}
	m := &refMeasure{size: 1, entered: len(w.stack)}
	if collection {
		m.height = 1
	}
	w.measure[key] = m
	add := func(c refMeasure, levels int) {
		m.size += c.size
		if c.height > 0 {
			m.height = max(m.height, c.height+levels)
		}
	}
	if n.Kind == yaml.SequenceNode {
		for _, c := range n.Content {
			cm, ok := w.walk(src, c, depth+1, false)
			if !ok {
				return refMeasure{}, false
			}
			add(cm, 1)
		}
	}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "$ref" && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
			m.size += 2
			cm, ok := w.expand(src, v, depth+1)
			if !ok {
				return refMeasure{}, false
			}
			add(cm, 1)
		case !names && (dataKeys[k.Value] || strings.HasPrefix(k.Value, "x-")):
			m.size++
		default:
			cm, ok := w.walk(src, v, depth+1, !names && nameMaps[k.Value])
			if !ok {
				return refMeasure{}, false
			}
			m.size++
			add(cm, 1)
		}
	}
	m.done = true
	return *m, true
}

// reuse counts a node the walk has measured, met again at depth through a
// reference or an alias, against the budget and the depth limit.
func (w *refWalk) reuse(src *source, n *yaml.Node, m refMeasure, depth int) bool {
	if m.height > 0 && depth+m.height-1 > maxDepth {
		w.fail(src, n, fmt.Sprintf("nests the document deeper than %d levels of objects, arrays and references: idemgen refuses deeper documents", maxDepth))
		return false
	}
	if w.visited += m.size; w.visited > w.budget() {
		w.overBudget(src, n)
		return false
	}
	return true
}

// expand follows the reference whose value node is ref, found in src at
// depth, and returns the measure of what it expands to: nothing for a
// component schema, which is walked once on its own (queued), nor for a
// target the scan cannot read (kin-openapi and the dangling check report
// those), nor for one that closes a cycle (recorded as an error).
func (w *refWalk) expand(src *source, ref *yaml.Node, depth int) (refMeasure, bool) {
	if strings.Contains(ref.Value, componentSchemasRef) {
		if !w.components[ref.Value] {
			w.components[ref.Value] = true
			w.queue = append(w.queue, refStep{src: src, ref: ref})
		}
		return refMeasure{}, true
	}
	tsrc, target := w.target(src, ref)
	if target == nil {
		return refMeasure{}, true
	}
	if m, ok := w.measure[walkKey{target, false}]; ok && !m.done {
		w.cycle(src, ref, m.entered)
		return refMeasure{}, true
	}
	w.stack = append(w.stack, refStep{src: src, ref: ref})
	m, ok := w.walk(tsrc, target, depth, false)
	w.stack = w.stack[:len(w.stack)-1]
	return m, ok
}

// follow walks the target of a component reference at depth, counting it
// once for each distinct reference text, as the planner plans it.
func (w *refWalk) follow(src *source, ref *yaml.Node, depth int) bool {
	tsrc, target := w.target(src, ref)
	if target == nil {
		return true
	}
	w.stack = append(w.stack, refStep{src: src, ref: ref})
	_, ok := w.walk(tsrc, target, depth, false)
	w.stack = w.stack[:len(w.stack)-1]
	return ok
}

// target resolves the reference ref found in src to its file and node, or
// returns nil for a target the scan does not read: a URL while remote
// references are off, a file the sandbox refuses or cannot read, a
// pointer that names nothing. A remote document that cannot be fetched is
// an error at the reference.
func (w *refWalk) target(src *source, ref *yaml.Node) (*source, *yaml.Node) {
	file, frag, _ := strings.Cut(ref.Value, "#")
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	tsrc := src
	if file != "" {
		tsrc = w.file(src, ref, file)
		if tsrc == nil {
			return nil, nil
		}
	}
	n, ok := lookupPointer(tsrc.root, frag)
	if !ok {
		return nil, nil
	}
	return tsrc, deref(n)
}

// file returns the document the file part of the reference ref, found in
// src, names, or nil when the scan does not read it.
func (w *refWalk) file(src *source, ref *yaml.Node, file string) *source {
	u, err := url.Parse(file)
	if err != nil {
		return nil
	}
	if src.base != nil {
		u = src.base.ResolveReference(u)
	}
	var tsrc *source
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		if !w.l.box.allowRemote {
			return nil // checkRefs refuses it
		}
		tsrc, err = w.l.box.remote(w.ctx, u)
		if refused, ok := errors.AsType[*errAddressRefused](err); ok {
			w.errs = append(w.errs, &Error{Pos: src.pos(ref), Path: "$ref", Msg: fmt.Sprintf("%q names a URL whose host %s", ref.Value, refused)})
			return nil
		}
		if err != nil {
			w.errs = append(w.errs, &Error{Pos: src.pos(ref), Path: "$ref", Msg: fmt.Sprintf("%q cannot be read: %v", ref.Value, err)})
			return nil
		}
	case u.Scheme != "" && u.Scheme != "file", u.Host != "", src.base != nil:
		return nil
	default:
		if tsrc, err = w.l.source(fileKey(src, u.Path)); err != nil {
			return nil // refused, unreadable or invalid: reported where kin-openapi needs it
		}
	}
	w.count(tsrc)
	return tsrc
}

// cycle records the reference ref, found in src, that leads back into a
// node the walk is inside; the references expanded since the walk entered
// that node, from stack[entered:], and ref itself make the cycle.
func (w *refWalk) cycle(src *source, ref *yaml.Node, entered int) {
	how := "it names a node that holds it"
	if steps := w.stack[entered:]; len(steps) > 0 {
		const shown = 6
		var chain []string
		for i, s := range steps {
			if i == shown {
				chain = append(chain, fmt.Sprintf("%d more", len(steps)-shown))
				break
			}
			chain = append(chain, fmt.Sprintf("%s %q", s.src.pos(s.ref), s.ref.Value))
		}
		how = "through " + strings.Join(chain, " → ")
	}
	w.errs = append(w.errs, &Error{Pos: src.pos(ref), Path: "$ref", Msg: fmt.Sprintf(
		"%q closes a cycle of references (%s) that passes through no schema under components/schemas: the schema contains itself without a name and expands without end "+
			"(move the recursive schema under components/schemas and refer to it as '#/components/schemas/NAME')",
		ref.Value, how)})
}

// fail records msg at the innermost reference being expanded, or at node
// n of src when there is none.
func (w *refWalk) fail(src *source, n *yaml.Node, msg string) {
	e := &Error{Pos: src.pos(n), Msg: msg}
	if len(w.stack) > 0 {
		s := w.stack[len(w.stack)-1]
		e = &Error{Pos: s.src.pos(s.ref), Path: "$ref", Msg: fmt.Sprintf("%q %s", s.ref.Value, msg)}
	}
	w.errs = append(w.errs, e)
}

// overBudget records that the walk grew past its budget at node n of src.
func (w *refWalk) overBudget(src *source, n *yaml.Node) {
	w.fail(src, n, fmt.Sprintf("expands the document beyond %d nodes (its files have %d as written): idemgen refuses references that grow it this much "+
		"(put a schema that many places use under components/schemas and refer to it as '#/components/schemas/NAME': it is planned once)", w.budget(), w.written))
}
