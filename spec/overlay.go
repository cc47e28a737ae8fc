package spec

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/theory/jsonpath"
	"go.yaml.in/yaml/v4"
)

// Overlays
//
// An OpenAPI Overlay (1.0 or 1.1) lets a team annotate a spec it does not
// own. Its actions are applied in order, each to the result of the ones
// before, to the spec's YAML node tree, so every value keeps its position.
// An action's target is an RFC 9535 JSONPath query (such as
// $.paths.*.post or $.paths[*][?@.operationId == 'createOrder']),
// evaluated over a JSON view of the tree (overlay_view.go); each normalized
// path it selects is mapped back to its node. An action updates (merges
// objects, concatenates lists, appends to a targeted list), removes, or, in
// Overlay 1.1, copies the single node another query selects.
//
// Overlays may change only contract blocks: x-idempotency on operations
// and x-idempotency-defaults on the root (overlay_scope.go). Anything else
// is an error at its position in the overlay, never a silent skip. Because
// only those extension values change, kin-openapi's view of the document
// is unaffected; the values an overlay provides keep positions in the
// overlay file, and copied values keep the positions they were copied
// from.

// Unmatched says what an overlay action whose target selects nothing is.
type Unmatched string

// The ways to treat an action that matches nothing.
const (
	// UnmatchedError makes the spec unusable, at the action's target.
	UnmatchedError Unmatched = "error"
	// UnmatchedWarn records a warning in Document.Warnings and goes on.
	UnmatchedWarn Unmatched = "warn"
)

// ParseUnmatched reads the value of a --overlay-unmatched flag.
func ParseUnmatched(s string) (Unmatched, error) {
	switch u := Unmatched(s); u {
	case UnmatchedError, UnmatchedWarn:
		return u, nil
	}
	return "", fmt.Errorf("unknown overlay-unmatched value %q (want error or warn)", s)
}

// OverlayAction names one overlay action that set or changed a contract.
type OverlayAction struct {
	// File is the overlay file as given.
	File string
	// Index numbers the action in the file's actions list, from 1.
	Index int
	// Pos is where the action starts.
	Pos Position
	// Defaults is true when the action changed the root's
	// x-idempotency-defaults block, which the contract merges, rather than
	// the operation's own block.
	Defaults bool
}

// The fields of an overlay document and of an action.
var (
	overlayFields       = []string{"overlay", "info", "extends", "actions"}
	overlayActionFields = []string{"target", "description", "update", "remove", "copy"}
)

// shorthandName and shorthandPath find the member names RFC 9535 does
// not allow after a dot, which older overlay tools accepted: a name with a
// hyphen, such as .x-idempotency, and a path, such as ./orders.
var (
	shorthandName = regexp.MustCompile(`\.([A-Za-z_][A-Za-z0-9_]*-[A-Za-z0-9_-]*)`)
	shorthandPath = regexp.MustCompile(`\.(/[^.\[\]]*)`)
)

// jsonPathHint suggests the bracket form for a name RFC 9535 does not
// allow after a dot, or returns "".
func jsonPathHint(q string) string {
	for _, re := range []*regexp.Regexp{shorthandPath, shorthandName} {
		if m := re.FindStringSubmatch(q); m != nil {
			return fmt.Sprintf(" (RFC 9535 allows only letters, digits and _ after a dot: write ['%s'] for .%s)", m[1], m[1])
		}
	}
	return ""
}

// overlayVersion matches the overlay versions idemgen applies.
var overlayVersion = regexp.MustCompile(`^1\.[01]\.\d+$`)

// overlayRecord is one action applied to the document: which, and the
// operation node whose block it changed (nil for the defaults block).
type overlayRecord struct {
	action OverlayAction
	op     *yaml.Node
}

// overlayRun applies the actions of one overlay file.
type overlayRun struct {
	l  *loader
	ov *source
	// copies is true for Overlay 1.1, which has the copy action.
	copies bool
	view   *docView
	// unmatched treats targets that select nothing.
	unmatched Unmatched
	// stopped is set when an action crossed a bound (overlay_bounds.go):
	// no later action is applied.
	stopped bool
}

// applyOverlays applies each overlay file in order to the document rooted
// in root.
func (l *loader) applyOverlays(root *source, files []string, unmatched Unmatched) error {
	var view *docView
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return &Error{Pos: Position{File: file}, Msg: "cannot read overlay: " + readFailure(err)}
		}
		ov, err := parseSource(file, data)
		if err != nil {
			return err
		}
		if dups := duplicateKeys(ov); len(dups) > 0 {
			return dups.errOrNil()
		}
		if view == nil {
			view = l.newView(root)
			l.overlayBudget.written += countNodes(root.root)
		}
		l.overlayBudget.written += countNodes(ov.root)
		r := &overlayRun{l: l, ov: ov, view: view, unmatched: unmatched}
		r.apply()
		if r.stopped {
			break
		}
	}
	return l.errs.errOrNil()
}

// fail records an error at node n of the overlay.
func (r *overlayRun) fail(n *yaml.Node, path, format string, args ...any) {
	r.l.errs = append(r.l.errs, &Error{Pos: r.ov.pos(n), Path: path, Msg: fmt.Sprintf(format, args...)})
}

// apply checks the overlay document and applies its actions.
func (r *overlayRun) apply() {
	root := r.ov.root
	if root == nil || root.Kind != yaml.MappingNode {
		r.fail(root, "", "not an OpenAPI Overlay: want an object at the top level, got %s", kindName(root))
		return
	}
	k, v := mappingEntry(root, "overlay")
	switch {
	case v == nil:
		r.fail(root, "overlay", "not an OpenAPI Overlay document: no overlay field (want overlay: 1.0.0 or 1.1.0)")
		return
	case v.Kind != yaml.ScalarNode || !overlayVersion.MatchString(v.Value):
		r.fail(v, k.Value, "unsupported Overlay version %s (want 1.0.x or 1.1.x)", kindName(v))
		return
	}
	r.copies = strings.HasPrefix(v.Value, "1.1.")
	ok := true
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; !slices.Contains(overlayFields, k.Value) && !strings.HasPrefix(k.Value, "x-") {
			r.fail(k, "", "unknown field %q%s", k.Value, didYouMean(k.Value, overlayFields))
			ok = false
		}
	}
	if !r.checkInfo() {
		ok = false
	}
	_, actions := mappingEntry(root, "actions")
	if actions == nil || actions.Kind != yaml.SequenceNode {
		r.fail(orNode(actions, root), "actions", "want a list of actions, got %s", kindName(actions))
		return
	}
	if !ok {
		return
	}
	for i, a := range actions.Content {
		if r.stopped {
			return
		}
		r.action(i, deref(a))
	}
}

// orNode returns n, or fallback when n is nil, so an error about a
// missing value points at the object that lacks it.
func orNode(n, fallback *yaml.Node) *yaml.Node {
	if n == nil {
		return fallback
	}
	return n
}

// checkInfo checks the required info object: a title and a version.
func (r *overlayRun) checkInfo() bool {
	_, info := mappingEntry(r.ov.root, "info")
	if info == nil || info.Kind != yaml.MappingNode {
		r.fail(orNode(info, r.ov.root), "info", "want an info object with title and version, got %s", kindName(info))
		return false
	}
	ok := true
	for _, f := range []string{"title", "version"} {
		if _, v := mappingEntry(info, f); v == nil || v.Kind != yaml.ScalarNode || v.Value == "" {
			r.fail(orNode(v, info), "info."+f, "want a non-empty string, got %s", kindName(v))
			ok = false
		}
	}
	return ok
}

// actionKind is what one action does.
type actionKind int

// The action kinds.
const (
	actionUpdate actionKind = iota
	actionRemove
	actionCopy
)

// action checks and applies the action a, number i of the list.
func (r *overlayRun) action(i int, a *yaml.Node) {
	path := fmt.Sprintf("actions[%d]", i)
	if a.Kind != yaml.MappingNode {
		r.fail(a, path, "want an object with target and update, remove or copy, got %s", kindName(a))
		return
	}
	ok := true
	for j := 0; j+1 < len(a.Content); j += 2 {
		k := a.Content[j]
		switch {
		case k.Value == "copy" && !r.copies:
			r.fail(k, path, "copy is an Overlay 1.1 action: write overlay: 1.1.0")
			ok = false
		case !slices.Contains(overlayActionFields, k.Value) && !strings.HasPrefix(k.Value, "x-"):
			r.fail(k, path, "unknown field %q%s", k.Value, didYouMean(k.Value, overlayActionFields))
			ok = false
		}
	}
	if !ok {
		return
	}
	_, target := mappingEntry(a, "target")
	if target == nil || target.Kind != yaml.ScalarNode || target.ShortTag() != "!!str" {
		r.fail(orNode(target, a), path+".target", "want a JSONPath query such as $.paths.*.post, got %s", kindName(target))
		return
	}
	kind, modNode, ok := r.modifier(a, path)
	if !ok {
		return
	}
	value := modNode
	query, err := jsonpath.Parse(target.Value)
	if err != nil {
		r.fail(target, path+".target", "invalid JSONPath %q: %v%s", target.Value, err, jsonPathHint(target.Value))
		return
	}
	var src *source
	if kind == actionCopy {
		if value, src, ok = r.copySource(modNode, path); !ok {
			return
		}
	}
	paths := r.view.selectPaths(query)
	if len(paths) == 0 {
		e := &Error{Pos: r.ov.pos(target), Path: path + ".target", Msg: fmt.Sprintf("target %q matches nothing in the document", target.Value)}
		if r.unmatched == UnmatchedWarn {
			r.l.warnings = append(r.l.warnings, e)
		} else {
			r.l.errs = append(r.l.errs, e)
		}
		return
	}
	act := OverlayAction{File: r.ov.file, Index: i + 1, Pos: r.ov.pos(a)}
	// Apply in reverse document order, so removing a list item does not
	// shift the indexes of the targets still to come.
	if kind == actionRemove {
		slices.Reverse(paths)
	}
	// A path item referenced from two paths is one node: act on it once.
	done := map[*yaml.Node]bool{}
	for _, p := range paths {
		t, ok := r.view.locate(p)
		if !ok || done[t.node] {
			continue // removed with an enclosing target, or already acted on
		}
		done[t.node] = true
		where := scopeOf(t.path)
		if at, problem := where.allows(kind, value); problem != "" {
			r.fail(r.blame(kind, target, modNode, at), path, "target %s: %s", t.path, problem)
			continue
		}
		if kind != actionRemove && !r.fits(t, value, modNode, path+"."+kindField(kind)) {
			return
		}
		m := merger{run: r, origin: r.overlayOrigin, blame: func(n *yaml.Node) *yaml.Node { return n }, path: path}
		if kind == actionCopy {
			m.origin = r.l.copyOrigin(src)
			m.blame = func(*yaml.Node) *yaml.Node { return modNode }
		}
		if kind == actionRemove {
			remove(t)
		} else if !m.merge(t, value) {
			continue
		}
		r.view.refresh(where, t)
		r.record(act, where, t.path)
	}
}

// kindField is the action field of an update or a copy.
func kindField(kind actionKind) string {
	if kind == actionCopy {
		return "copy"
	}
	return "update"
}

// modifier reads which of update, remove: true and copy the action has;
// exactly one is allowed.
func (r *overlayRun) modifier(a *yaml.Node, path string) (actionKind, *yaml.Node, bool) {
	_, update := mappingEntry(a, "update")
	_, copyFrom := mappingEntry(a, "copy")
	_, remove := mappingEntry(a, "remove")
	removes := false
	if remove != nil {
		if remove.ShortTag() != "!!bool" {
			r.fail(remove, path+".remove", "want true or false, got %s", kindName(remove))
			return 0, nil, false
		}
		removes = remove.Value == "true" || remove.Value == "True" || remove.Value == "TRUE"
	}
	var kinds []string
	for _, m := range []struct {
		name string
		set  bool
	}{{"update", update != nil}, {"remove: true", removes}, {"copy", copyFrom != nil}} {
		if m.set {
			kinds = append(kinds, m.name)
		}
	}
	switch {
	case len(kinds) == 0:
		r.fail(a, path, "an action needs update, remove: true or copy")
	case len(kinds) > 1:
		r.fail(a, path, "an action does one thing; this one has %s", strings.Join(kinds, " and "))
	case update != nil:
		return actionUpdate, update, true
	case removes:
		return actionRemove, nil, true
	default:
		return actionCopy, copyFrom, true
	}
	return 0, nil, false
}

// copySource evaluates the copy query q and returns the one node it
// selects, with the file that holds it.
func (r *overlayRun) copySource(q *yaml.Node, path string) (*yaml.Node, *source, bool) {
	if q.Kind != yaml.ScalarNode || q.ShortTag() != "!!str" {
		r.fail(q, path+".copy", "want a JSONPath query that selects one node, got %s", kindName(q))
		return nil, nil, false
	}
	query, err := jsonpath.Parse(q.Value)
	if err != nil {
		r.fail(q, path+".copy", "invalid JSONPath %q: %v%s", q.Value, err, jsonPathHint(q.Value))
		return nil, nil, false
	}
	paths := r.view.selectPaths(query)
	if len(paths) != 1 {
		r.fail(q, path+".copy", "copy %q selects %d nodes, want exactly one", q.Value, len(paths))
		return nil, nil, false
	}
	t, ok := r.view.locate(paths[0])
	if !ok {
		r.fail(q, path+".copy", "copy %q selects nothing in the document", q.Value)
		return nil, nil, false
	}
	return t.node, t.src, true
}

// blame is the overlay node an action that may not change its target is
// reported at: the target of a removal, the copy query of a copy (the
// value is in the document), else the offending node at of the update, or
// the update itself.
func (r *overlayRun) blame(kind actionKind, target, modNode, at *yaml.Node) *yaml.Node {
	switch {
	case kind == actionRemove:
		return target
	case kind == actionCopy || at == nil:
		return modNode
	}
	return at
}

// overlayOrigin names the overlay file as the origin of every node an
// update inserts.
func (r *overlayRun) overlayOrigin(*yaml.Node) string { return r.ov.file }

// copyOrigin names, for each node a copy from the file src inserts, the
// file it came from: the overlay that inserted it earlier, or src.
func (l *loader) copyOrigin(src *source) func(*yaml.Node) string {
	return func(n *yaml.Node) string {
		if f, ok := l.overlayNodes[n]; ok {
			return f
		}
		return src.file
	}
}

// record notes that act changed the contract block of the operation at
// normalized path p, or the defaults block.
func (r *overlayRun) record(act OverlayAction, where scope, p normalizedPath) {
	rec := overlayRecord{action: act}
	if where.kind == scopeRoot || where.kind == scopeDefaults {
		rec.action.Defaults = true
	} else if t, ok := r.view.locate(p[:3]); ok {
		rec.op = t.node
	}
	if n := len(r.l.overlayLog); n > 0 && r.l.overlayLog[n-1] == rec {
		return // one action with several targets in the same block
	}
	r.l.overlayLog = append(r.l.overlayLog, rec)
}

// overlaysFor lists the overlay actions that set or changed the contract
// block of the operation node opNode, or the defaults block, in the order
// they were applied.
func (l *loader) overlaysFor(opNode *yaml.Node) []OverlayAction {
	opNode = deref(opNode)
	var out []OverlayAction
	for _, rec := range l.overlayLog {
		if rec.op == opNode || rec.action.Defaults {
			out = append(out, rec.action)
		}
	}
	return out
}
