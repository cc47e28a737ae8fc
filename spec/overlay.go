package spec

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Overlays
//
// An OpenAPI Overlay 1.0 file lets a team annotate a spec it does not own.
// idemgen applies the part of the standard that contract annotation needs:
// actions whose target is a simple path, such as $.paths['/orders'].post
// or $.paths./orders.post, that update or remove x-idempotency blocks (on
// operations) and the x-idempotency-defaults block (on the root). Anything
// else is an error at its position in the overlay, never a silent skip.
// Because only those extension values change, kin-openapi's view of the
// document is unaffected; the contract values an overlay provides keep
// positions in the overlay file.

// overlayActionFields are the fields of an overlay action.
var overlayActionFields = []string{"target", "description", "update", "remove"}

// contractKeys are the keys overlays may set or remove.
var contractKeys = []string{"x-idempotency", "x-idempotency-defaults"}

// applyOverlays applies each overlay file in order to the document rooted
// in root.
func (l *loader) applyOverlays(root *source, files []string) error {
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
		l.applyOverlay(root, ov)
	}
	return l.errs.errOrNil()
}

// applyOverlay applies the actions of one parsed overlay, recording
// errors in l.errs.
func (l *loader) applyOverlay(root, ov *source) {
	fail := func(n *yaml.Node, path, format string, args ...any) {
		l.errs = append(l.errs, &Error{Pos: ov.pos(n), Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if ov.root == nil || ov.root.Kind != yaml.MappingNode {
		fail(ov.root, "", "not an OpenAPI Overlay: want an object at the top level, got %s", kindName(ov.root))
		return
	}
	if _, v := mappingEntry(ov.root, "overlay"); v == nil || v.Kind != yaml.ScalarNode || !strings.HasPrefix(v.Value, "1.") {
		fail(ov.root, "overlay", "not an OpenAPI Overlay 1.x document: want overlay: 1.0.0")
		return
	}
	_, actions := mappingEntry(ov.root, "actions")
	if actions == nil || actions.Kind != yaml.SequenceNode {
		fail(ov.root, "actions", "want a list of actions, got %s", kindName(actions))
		return
	}
	for i, a := range actions.Content {
		a = deref(a)
		path := fmt.Sprintf("actions[%d]", i)
		if a.Kind != yaml.MappingNode {
			fail(a, path, "want an object with target and update or remove, got %s", kindName(a))
			continue
		}
		ok := true
		for j := 0; j+1 < len(a.Content); j += 2 {
			k := a.Content[j]
			if !slices.Contains(overlayActionFields, k.Value) && !strings.HasPrefix(k.Value, "x-") {
				fail(k, path, "unknown field %q%s", k.Value, didYouMean(k.Value, overlayActionFields))
				ok = false
			}
		}
		if ok {
			l.applyAction(root, ov, a, path, fail)
		}
	}
}

// applyAction applies one overlay action.
func (l *loader) applyAction(root, ov *source, a *yaml.Node, path string, fail func(*yaml.Node, string, string, ...any)) {
	_, target := mappingEntry(a, "target")
	if target == nil || target.Kind != yaml.ScalarNode {
		fail(a, path+".target", "want a target such as $.paths['/orders'].post")
		return
	}
	segs, err := parseTarget(target.Value)
	if err != nil {
		fail(target, path+".target", "unsupported target %q: %v", target.Value, err)
		return
	}
	_, update := mappingEntry(a, "update")
	_, remove := mappingEntry(a, "remove")
	switch {
	case update != nil && remove != nil:
		fail(a, path, "an action either updates or removes, not both")
	case remove != nil:
		if remove.ShortTag() != "!!bool" || remove.Value != "true" {
			fail(remove, path+".remove", "want true, got %s", kindName(remove))
			return
		}
		if !slices.ContainsFunc(segs, func(s string) bool { return slices.Contains(contractKeys, s) }) {
			fail(target, path+".target", "overlays may only remove x-idempotency and x-idempotency-defaults, and %q is neither", target.Value)
			return
		}
		parent, ok := l.locate(root, segs[:len(segs)-1])
		if !ok || !removeKey(parent, segs[len(segs)-1]) {
			fail(target, path+".target", "target %q matches nothing in the document", target.Value)
		}
	case update != nil:
		if problem := updateProblem(segs, update); problem != "" {
			fail(update, path+".update", "%s", problem)
			return
		}
		node, ok := l.locate(root, segs)
		if !ok {
			fail(target, path+".target", "target %q matches nothing in the document", target.Value)
			return
		}
		if node.Kind != yaml.MappingNode {
			fail(target, path+".target", "target %q is %s, want an object to update", target.Value, kindName(node))
			return
		}
		l.mergeInto(node, update, ov.file)
	default:
		fail(a, path, "an action needs update or remove")
	}
}

// updateProblem says why an update with target segs may not be applied,
// or "" when it may: it must change only contract blocks, and put each
// where Load reads it.
func updateProblem(segs []string, update *yaml.Node) string {
	if update.Kind != yaml.MappingNode {
		return "want an object, got " + kindName(update)
	}
	if slices.ContainsFunc(segs, func(s string) bool { return slices.Contains(contractKeys, s) }) {
		return ""
	}
	isOp := len(segs) == 3 && (segs[0] == "paths" || segs[0] == "webhooks") && slices.Contains(methods, segs[2])
	for i := 0; i+1 < len(update.Content); i += 2 {
		switch k := update.Content[i].Value; {
		case k == "x-idempotency" && isOp, k == "x-idempotency-defaults" && len(segs) == 0:
		case k == "x-idempotency":
			return "x-idempotency belongs on an operation: target it as $.paths['/orders'].post"
		case k == "x-idempotency-defaults":
			return "x-idempotency-defaults belongs on the root: target it as $"
		default:
			return fmt.Sprintf("overlays may only set x-idempotency and x-idempotency-defaults, not %q", k)
		}
	}
	return ""
}

// locate finds the node at segs below the root, following $refs (such as
// a path item kept in another file) on the way.
func (l *loader) locate(root *source, segs []string) (*yaml.Node, bool) {
	src, n := root, root.root
	for _, seg := range segs {
		src, n = l.resolvePathItem(src, n)
		_, n = mappingEntry(n, seg)
		if n == nil {
			return nil, false
		}
	}
	_, n = l.resolvePathItem(src, n)
	return n, true
}

// mergeInto merges the update mapping into target as the Overlay standard
// says: objects merge recursively, anything else replaces. Every node the
// overlay provides is marked as coming from file.
func (l *loader) mergeInto(target, update *yaml.Node, file string) {
	for i := 0; i+1 < len(update.Content); i += 2 {
		k, v := update.Content[i], update.Content[i+1]
		j := keyIndex(target, k.Value)
		if j < 0 {
			target.Content = append(target.Content, k, v)
			l.markOverlay(k, file)
			l.markOverlay(v, file)
			continue
		}
		if old, nv := deref(target.Content[j+1]), deref(v); old.Kind == yaml.MappingNode && nv.Kind == yaml.MappingNode {
			l.mergeInto(old, nv, file)
			continue
		}
		target.Content[j+1] = v
		l.markOverlay(v, file)
	}
}

// markOverlay records that n and everything below it came from file.
func (l *loader) markOverlay(n *yaml.Node, file string) {
	if n == nil {
		return
	}
	l.overlayNodes[n] = file
	for _, c := range n.Content {
		l.markOverlay(c, file)
	}
}

// keyIndex returns the index in m.Content of key, or -1.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// removeKey deletes key from mapping m and reports whether it was there.
func removeKey(m *yaml.Node, key string) bool {
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	i := keyIndex(m, key)
	if i < 0 {
		return false
	}
	m.Content = slices.Delete(m.Content, i, i+2)
	return true
}

// errTargetForm explains which targets are supported.
var errTargetForm = errors.New("want a simple path such as $.paths['/orders'].post or $.paths./orders.post")

// parseTarget splits a simple JSONPath such as $.paths['/orders'].post or
// $.paths./orders.post into its member names. Wildcards, filters, indexes
// and recursive descent are not supported.
func parseTarget(s string) ([]string, error) {
	if !strings.HasPrefix(s, "$") {
		return nil, errTargetForm
	}
	s = s[1:]
	var segs []string
	for s != "" {
		var name string
		switch {
		case strings.HasPrefix(s, "['") || strings.HasPrefix(s, `["`):
			end := strings.IndexByte(s[2:], s[1])
			if end < 0 || !strings.HasPrefix(s[2+end+1:], "]") {
				return nil, errTargetForm
			}
			name, s = s[2:2+end], s[2+end+2:]
		case s[0] == '.':
			s = s[1:]
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			name, s = s[:end], s[end:]
		default:
			return nil, errTargetForm
		}
		if name == "" || strings.ContainsAny(name, "*?@") {
			return nil, errTargetForm
		}
		segs = append(segs, name)
	}
	return segs, nil
}
