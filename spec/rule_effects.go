package spec

import (
	"fmt"
	"strings"
)

// The rules on effects: unique identifier names, payloads that name a
// component schema, one payload per effect name. IDEM014 (halt-on-atomic)
// is retired: the worker halts an atomic operation's effect in
// requires_recovery while the operation's result stands.

var ruleDuplicateEffect = Rule{
	ID:       "IDEM011",
	Name:     "duplicate-effect-name",
	Severity: SeverityError,
	Summary:  "two effects of one operation with the same name",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		r.reportDuplicates(effectNames(r.c.Effects), "x-idempotency.effects[%d].name",
			func(name string, firstLine int) string {
				return fmt.Sprintf("effect %q is declared twice (first at line %d): each effect needs its own name, since its name derives its effect key", name, firstLine)
			},
			"rename one of them, or merge them into one effect")
	},
}

var ruleEffectNameNotIdentifier = Rule{
	ID:       "IDEM012",
	Name:     "effect-name-not-identifier",
	Severity: SeverityError,
	Summary:  "an effect name that is not a lower-case identifier (^[a-z][a-z0-9_]*$)",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		r.reportNonIdentifiers(effectNames(r.c.Effects), "x-idempotency.effects[%d].name",
			func(name string) string {
				return fmt.Sprintf("effect name %q is not a lower-case identifier: it names generated code and effect keys", name)
			},
			"use lower-case letters, digits and _, starting with a letter, such as send_receipt")
	},
}

// effectNames lists the names of effects, in order.
func effectNames(effects []Effect) []Field[string] {
	out := make([]Field[string], len(effects))
	for i, e := range effects {
		out[i] = e.Name
	}
	return out
}

var ruleEffectPayloadNotFound = Rule{
	ID:       "IDEM027",
	Name:     "effect-payload-not-found",
	Severity: SeverityError,
	Summary:  "an effect payload that does not name a schema under components/schemas",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, e := range r.c.Effects {
			if !e.Payload.Set {
				continue
			}
			isRef, declared := componentRef(r.doc, e.Payload.Value)
			if declared {
				continue
			}
			msg := fmt.Sprintf("payload %q of effect %q names no schema under components/schemas", e.Payload.Value, e.Name.Value)
			if !isRef {
				msg = fmt.Sprintf("payload %q of effect %q is not a component schema reference (%sName)", e.Payload.Value, e.Name.Value, componentPrefix)
			}
			r.report(e.Payload.Pos, fmt.Sprintf("x-idempotency.effects[%d].payload", i), msg,
				"declare the payload's schema under components/schemas and name it as "+componentPrefix+"Name, or leave payload out for bytes")
		}
	},
}

// componentRef reports whether ref is the reference of a schema under
// components/schemas (#/components/schemas/Name, no deeper) and whether
// doc declares that schema.
func componentRef(doc *Document, ref string) (isRef, declared bool) {
	name, ok := strings.CutPrefix(ref, componentPrefix)
	if !ok || strings.Contains(name, "/") {
		return false, false
	}
	if doc == nil || doc.OpenAPI == nil || doc.OpenAPI.Components == nil {
		return true, false
	}
	s, ok := doc.OpenAPI.Components.Schemas[name]
	return true, ok && s != nil && s.Value != nil
}

var ruleEffectPayloadDiffers = Rule{
	ID:       "IDEM028",
	Name:     "effect-payload-differs",
	Severity: SeverityError,
	Summary:  "an effect name that two operations declare with different payloads",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, e := range r.c.Effects {
			first, firstOp := firstEffect(r.doc, e.Name.Value)
			if first == nil || first == &r.c.Effects[i] || first.Payload.Value == e.Payload.Value {
				continue
			}
			r.report(fieldPos(e.Payload.Pos, e.Pos), fmt.Sprintf("x-idempotency.effects[%d].payload", i),
				fmt.Sprintf("effect %q has payload %s here but %s in %s (line %d): one provider executes every effect of a name, so they need one payload", e.Name.Value, payloadName(e.Payload), payloadName(first.Payload), opLabel(firstOp), first.Pos.Line),
				"give both the same payload, or give the effects different names")
		}
	},
}

// firstEffect returns the first declaration of the effect name in doc's
// annotated operations, by position, and its operation.
func firstEffect(doc *Document, name string) (*Effect, *Operation) {
	var first *Effect
	var firstOp *Operation
	for _, op := range doc.Operations {
		if op.Contract == nil {
			continue
		}
		for i := range op.Contract.Effects {
			e := &op.Contract.Effects[i]
			if e.Name.Value == name && (first == nil || e.Pos.Before(first.Pos)) {
				first, firstOp = e, op
			}
		}
	}
	return first, firstOp
}

// payloadName names a payload in messages.
func payloadName(p Field[string]) string {
	if !p.Set {
		return "bytes (no payload)"
	}
	return p.Value
}

// opLabel names an operation in messages: its operationId, or METHOD path.
func opLabel(op *Operation) string {
	if op.ID != "" {
		return op.ID
	}
	return op.Method + " " + op.Path
}

// fieldPos is a field's position, or its object's when it was not
// written.
func fieldPos(p, object Position) Position {
	if p.Line == 0 {
		return object
	}
	return p
}

// componentPrefix starts the $ref of a schema under components.
const componentPrefix = "#/components/schemas/"
