package diff

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
)

// compareStatuses reports the status routes (x-idempotency-status) added,
// removed or changed from base to head, matched by method and path.
func compareStatuses(out []Finding, base, head *spec.Document) []Finding {
	headBy := map[opKey]*spec.Operation{}
	for _, h := range head.Operations {
		if h.Status != nil {
			headBy[keyOf(h)] = h
		}
	}
	for _, b := range base.Operations {
		if b.Status == nil {
			continue
		}
		h := headBy[keyOf(b)]
		delete(headBy, keyOf(b))
		switch {
		case h == nil:
			out = add(out, "status-route-removed", operationOf(b), "x-idempotency-status",
				"the status route is gone",
				"A client that lost an answer can no longer ask what became of its attempt; it must retry with the same key, which the operation's contract still answers.",
				b.Status.Pos, spec.Position{})
		case h.Status.Operation.Value != b.Status.Operation.Value || h.Status.Parameter.Value != b.Status.Parameter.Value:
			out = add(out, "status-route-changed", operationOf(h), "x-idempotency-status",
				fmt.Sprintf("the status route tells %s by {%s}, was %s by {%s}", h.Status.Operation.Value, h.Status.Parameter.Value,
					b.Status.Operation.Value, b.Status.Parameter.Value),
				"A client that asks about an attempt of the old operation gets 404 attempt-unknown, as for a key never sent.",
				b.Status.Pos, h.Status.Pos)
		}
	}
	for _, h := range head.Operations {
		if h.Status != nil && headBy[keyOf(h)] == h {
			out = add(out, "status-route-added", operationOf(h), "x-idempotency-status",
				"a status route for "+h.Status.Operation.Value,
				"Attempts made before the change are told too: the route reads the records the operation already keeps.",
				spec.Position{}, h.Status.Pos)
		}
	}
	return out
}
