package generator

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
)

// The planner's rules: every reason idemgen generate refuses an annotated
// operation whose contract the spec's own rules find no error in. The
// planner alone decides what the generator can build, and each refusal has
// exactly one of these ids; every finding of them is an error. The ids
// below IDEM100 were the spec's before the planner took them over, and
// keep their numbers; docs/rules.md documents each once. IDEM020 (phased
// mode) and IDEM022 (replay: current) are retired: both are generated.
const (
	// RuleWebhook: webhook receivers are not generated yet.
	RuleWebhook = "IDEM021"
	// RuleUnsupportedBody: a request body in no generated media type, a
	// form body that is not an object with properties, or a multipart body
	// with files below its own properties.
	RuleUnsupportedBody = "IDEM023"
	// RulePointerNotWalkable: a fingerprint or natural-key pointer the
	// typed walk of generated code cannot follow.
	RulePointerNotWalkable = "IDEM024"
	// RuleNameCollision: two operations want one Go name.
	RuleNameCollision = "IDEM107"
	// RuleSchemaNotGo: a schema that cannot become a Go type (a bad
	// x-go-type, a property name no struct tag can hold).
	RuleSchemaNotGo = "IDEM108"
	// RuleRoute: a path that cannot be mounted on a router.
	RuleRoute = "IDEM109"
	// RulePattern: a pattern of a request schema that Go's RE2 cannot
	// compile, so the generated decoder could not check it.
	RulePattern = "IDEM110"
)

// ruleHints are the fix hints of the refusals the type planner finds,
// which carry none of their own.
var ruleHints = map[string]string{
	RuleUnsupportedBody: "give the form body an object schema with properties, with files (type string, format binary) only as its own properties, or offer it as application/json",
	RuleNameCollision:   "give the operations operationIds that differ in more than case and punctuation",
	RuleSchemaNotGo:     "change the schema so that it has a Go type: an x-go-type that names one, property names a JSON struct tag can hold",
	RulePattern:         "rewrite the pattern without lookaround, backreferences or possessive quantifiers, often as a simpler pattern beside minLength or maxLength",
}

// pointerHint is the fix hint of RulePointerNotWalkable.
const pointerHint = "point at the value as a whole, or at every element of an array with *; a union or free-form value is significant whole or not at all"

// unbuilt returns a refusal for each thing the contract of op asks for
// that no generated code does yet: a webhook receiver.
func unbuilt(op *spec.Operation) []spec.Diagnostic {
	if !op.Webhook {
		return nil
	}
	c := op.Contract
	var out []spec.Diagnostic
	refuse := func(pos spec.Position, rule, path, msg, hint string) {
		out = append(out, spec.Diagnostic{Pos: fieldPos(pos, c.Pos), Severity: spec.SeverityError, Rule: rule, Path: path, Message: msg, Hint: hint})
	}
	if op.Webhook {
		if c.Mode.Value == spec.ModePhased {
			refuse(c.Mode.Pos, RuleWebhook, "x-idempotency.mode",
				fmt.Sprintf("mode phased on the webhook %s (%s) is not generated: a webhook's handler runs in one transaction with its inbox row", op.Path, op.Method),
				"leave mode atomic on a webhook; hand a long job to an effect")
		}
		if n := webhookParams(op); n != "" {
			refuse(c.Pos, RuleWebhook, "x-idempotency",
				fmt.Sprintf("the webhook %s (%s) declares the parameter %s: a generated receiver decodes the body only, so no code would check it", op.Path, op.Method, n),
				"leave parameters off the webhook, or move what they carry into the body")
		}
	}
	return out
}

// fieldPos is a field's position, or the block's when the field was not
// written.
func fieldPos(p, block spec.Position) spec.Position {
	if p.Line == 0 {
		return block
	}
	return p
}
