package spec

import (
	"fmt"
	"slices"

	jpspec "github.com/theory/jsonpath/spec"
	"go.yaml.in/yaml/v4"
)

// Which parts of a document an overlay may change
//
// Only the contract blocks: an operation's x-idempotency and the root's
// x-idempotency-defaults, as a whole or anything inside them. An update or
// copy may also target the operation or the root itself when all it sets
// is that block. Everything else, such as a description, a parameter or a
// path item, stays as the document's owner wrote it: kin-openapi's view of
// the document, and so every rule that reads it, is the same with or
// without the overlay.

// scopeKind classifies where in the document a target is.
type scopeKind int

// The places a target can be.
const (
	// scopeOther is anywhere an overlay may not change.
	scopeOther scopeKind = iota
	// scopeRoot is the document root.
	scopeRoot
	// scopeDefaults is the root's x-idempotency-defaults or inside it.
	scopeDefaults
	// scopeOperation is an operation under paths or webhooks.
	scopeOperation
	// scopeContract is an operation's x-idempotency or inside it.
	scopeContract
)

// scope is where a target is.
type scope struct{ kind scopeKind }

// normalizedPath is the location of one node an RFC 9535 query selects,
// such as $['paths']['/orders']['post'].
type normalizedPath = jpspec.NormalizedPath

// scopeOf classifies the normalized path p.
func scopeOf(p normalizedPath) scope {
	name := func(i int) string {
		if i >= len(p) {
			return ""
		}
		n, _ := p[i].(jpspec.Name)
		return string(n)
	}
	switch {
	case len(p) == 0:
		return scope{scopeRoot}
	case name(0) == "x-idempotency-defaults":
		return scope{scopeDefaults}
	case (name(0) == "paths" || name(0) == "webhooks") && len(p) >= 3 && slices.Contains(methods, name(2)):
		if len(p) == 3 {
			return scope{scopeOperation}
		}
		if name(3) == "x-idempotency" {
			return scope{scopeContract}
		}
	}
	return scope{scopeOther}
}

// allows says why an action of kind with value may not be applied at a
// target in scope s, and at which node of value, or "" when it may.
func (s scope) allows(kind actionKind, value *yaml.Node) (*yaml.Node, string) {
	switch s.kind {
	case scopeDefaults, scopeContract:
		return nil, ""
	case scopeRoot, scopeOperation:
		if kind == actionRemove {
			return nil, "overlays may remove only x-idempotency, x-idempotency-defaults or values inside them"
		}
		return blockKeys(value, s.kind == scopeOperation)
	}
	if kind == actionRemove {
		return nil, "overlays may remove only x-idempotency, x-idempotency-defaults or values inside them"
	}
	if k, _ := mappingEntry(value, "x-idempotency"); k != nil {
		return k, "x-idempotency belongs on an operation: target it as $.paths['/orders'].post"
	}
	return nil, "overlays may change only x-idempotency on operations and x-idempotency-defaults on the root"
}

// blockKeys checks that the object value, merged into an operation (op)
// or the root, sets only the contract block that belongs there.
func blockKeys(value *yaml.Node, op bool) (*yaml.Node, string) {
	value = deref(value)
	if value.Kind != yaml.MappingNode {
		return nil, "want an object to merge, got " + kindName(value)
	}
	for i := 0; i+1 < len(value.Content); i += 2 {
		k := value.Content[i]
		switch {
		case k.Value == "x-idempotency" && op, k.Value == "x-idempotency-defaults" && !op:
		case k.Value == "x-idempotency":
			return k, "x-idempotency belongs on an operation: target it as $.paths['/orders'].post"
		case k.Value == "x-idempotency-defaults":
			return k, "x-idempotency-defaults belongs on the root: target it as $"
		default:
			return k, fmt.Sprintf("overlays may set only x-idempotency and x-idempotency-defaults, not %q", k.Value)
		}
	}
	return nil, ""
}
