package diff

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
)

// Compare returns the classified contract changes from base to head,
// sorted by operation, field and rule. Operations are matched by method
// and path; one that is gone from its path is matched by operationId to
// one that is new in head, and reported as moved. Only operations with an
// x-idempotency contract on either side are compared: a cosmetic change
// (descriptions, key order, comments, a value moved between an operation
// and equal document defaults) reports nothing.
func Compare(base, head *spec.Document) []Finding {
	var out []Finding
	headBy := map[opKey]*spec.Operation{}
	for _, op := range head.Operations {
		headBy[keyOf(op)] = op
	}
	matched := map[*spec.Operation]bool{}
	var gone []*spec.Operation
	for _, b := range base.Operations {
		if h, ok := headBy[keyOf(b)]; ok {
			matched[h] = true
			out = comparePair(out, b, h)
			continue
		}
		gone = append(gone, b)
	}

	byID := map[string]*spec.Operation{}
	for _, h := range head.Operations {
		if !matched[h] && h.ID != "" {
			byID[h.ID] = h
		}
	}
	for _, b := range gone {
		if h := byID[b.ID]; b.ID != "" && h != nil && h.Webhook == b.Webhook {
			matched[h] = true
			delete(byID, b.ID)
			out = moved(out, b, h)
			out = comparePair(out, b, h)
			continue
		}
		if b.Contract != nil {
			out = add(out, "operation-removed", operationOf(b), "",
				"the operation is gone",
				"A retry of a request sent before the change gets 404 or 405 instead of its stored response; its records stay until they expire and its pending effects still run.",
				b.Pos, spec.Position{})
		}
	}
	for _, h := range head.Operations {
		if !matched[h] && h.Contract != nil {
			out = add(out, "operation-added", operationOf(h), "",
				"a new operation with x-idempotency",
				"No retry of it can be in flight: its requests are protected from the first one.",
				spec.Position{}, h.Pos)
		}
	}
	out = compareStatuses(out, base, head)
	sortFindings(out)
	return out
}

// opKey identifies an operation within one spec.
type opKey struct {
	webhook      bool
	method, path string
}

// keyOf returns the key op is matched by.
func keyOf(op *spec.Operation) opKey {
	return opKey{op.Webhook, op.Method, op.Path}
}

// operationOf returns the reported name of op.
func operationOf(op *spec.Operation) Operation {
	return Operation{Method: op.Method, Path: op.Path, Webhook: op.Webhook, ID: op.ID}
}

// add appends the finding of rule, at the rule's level and with its
// fingerprint.
func add(out []Finding, rule string, op Operation, field, change, inFlight string, base, head spec.Position) []Finding {
	level, ok := levels[rule]
	if !ok {
		panic("diff: unlisted rule " + rule)
	}
	return append(out, Finding{
		Rule: rule, Level: level, Operation: op, Field: field,
		Change: change, InFlight: inFlight, Base: base, Head: head,
		Fingerprint: fingerprint(rule, op, field),
	})
}

// moved reports an annotated operation found under another method or path
// by its operationId.
func moved(out []Finding, b, h *spec.Operation) []Finding {
	if b.Contract == nil && h.Contract == nil {
		return out
	}
	return add(out, "operation-route-changed", operationOf(h), "",
		fmt.Sprintf("%s moved from %s to %s", h.ID, operationOf(b), operationOf(h)),
		"The method and route are part of the fingerprint: a retry sent to the new route with the key of a request to the old one gets 422, and one sent to the old route gets 404 or 405.",
		b.Pos, h.Pos)
}

// comparePair reports the changes between an operation in base and the
// same operation in head.
func comparePair(out []Finding, b, h *spec.Operation) []Finding {
	op := operationOf(h)
	switch {
	case b.Contract == nil && h.Contract == nil:
		return out
	case b.Contract == nil:
		if h.Contract.Key.Required.Value {
			return add(out, "idempotency-added-key-required", op, "x-idempotency",
				"the operation gets x-idempotency with a required key",
				"A retry of a request sent before the change finds no record and runs the operation again, as it would have; a request without a key, accepted before, now gets 400.",
				b.Pos, h.Contract.Pos)
		}
		return add(out, "idempotency-added", op, "x-idempotency",
			"the operation gets x-idempotency with an optional key",
			"A retry of a request sent before the change finds no record and runs the operation again, as it would have; requests with a key are protected from now on.",
			b.Pos, h.Contract.Pos)
	case h.Contract == nil:
		return add(out, "idempotency-removed", op, "x-idempotency",
			"the operation loses x-idempotency",
			"A retry of a request that already ran is no longer recognised: it runs the operation a second time.",
			b.Contract.Pos, h.Pos)
	}
	if b.ID != h.ID && b.ID != "" && h.ID != "" {
		out = operationIDChanged(out, op, b, h)
	}
	c := contracts{op: op, b: b.Contract, h: h.Contract}
	c.key()
	c.scope()
	c.naturalKey()
	c.fingerprint()
	c.timing()
	c.behaviour()
	c.effects()
	c.consumer()
	if b.Contract.Mode.Value == spec.ModePhased && h.Contract.Mode.Value == spec.ModePhased {
		c.steps()
	}
	return append(out, c.out...)
}

// operationIDChanged reports a renamed operationId, which names the
// operation's natural-key claims.
func operationIDChanged(out []Finding, op Operation, b, h *spec.Operation) []Finding {
	inFlight := "Retries are still recognised by their key; only the generated names change."
	switch bc, hc := b.Contract.Consumer, h.Contract.Consumer; {
	case bc != nil && hc != nil && bc.Name.Value != hc.Name.Value:
		inFlight = "The consumer's name in the inbox changes with it (consumer-name-changed)."
	case hc != nil:
		inFlight = fmt.Sprintf("The consumer keeps its name in the inbox, %s (its consumer), and so its messages; only the generated names change.", hc.Name.Value)
	case len(b.Contract.NaturalKey) > 0 || len(h.Contract.NaturalKey) > 0:
		inFlight = fmt.Sprintf("Retries are still recognised by their key, but natural keys are claimed per operationId: an entity created under %s does not block a duplicate created under %s with a new key.", b.ID, h.ID)
	}
	return add(out, "operation-id-changed", op, "operationId",
		fmt.Sprintf("operationId %s → %s", b.ID, h.ID), inFlight, b.Pos, h.Pos)
}
