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
	// RuleUnsupportedBody: a request body in no generated media type, or
	// a form body that is not an object with properties.
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
	RuleUnsupportedBody: "give the form body an object schema with properties, or offer it as application/json",
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
	return []spec.Diagnostic{{Pos: c.Pos, Severity: spec.SeverityError, Rule: RuleWebhook, Path: "x-idempotency",
		Message: fmt.Sprintf("x-idempotency on the webhook %s (%s) is not generated yet: webhook receivers come with the inbox, so no code would keep this contract", op.Path, op.Method),
		Hint:    "leave x-idempotency off webhooks until the inbox is generated"}}
}
