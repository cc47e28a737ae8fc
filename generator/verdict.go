package generator

import "github.com/idemgen/idemgen/spec"

// The planner's rules: the reasons it refuses an annotated operation that
// the spec's own rules let through. They are numbered apart from the
// spec's rules (IDEM1xx) and documented at the end of docs/rules.md.
const (
	// RulePhased: phased mode is not generated yet.
	RulePhased = "IDEM101"
	// RuleWebhook: webhook receivers are not generated yet.
	RuleWebhook = "IDEM102"
	// RuleReplayCurrent: replay: current is not generated yet.
	RuleReplayCurrent = "IDEM103"
	// RuleUnsupportedBody: the request body is in no media type that is
	// generated.
	RuleUnsupportedBody = "IDEM104"
	// RuleFingerprintPointer: a fingerprint pointer the typed walk cannot
	// follow.
	RuleFingerprintPointer = "IDEM105"
	// RuleNaturalKeyPointer: a natural-key pointer the typed walk cannot
	// follow.
	RuleNaturalKeyPointer = "IDEM106"
	// RuleNameCollision: two operations want one Go name.
	RuleNameCollision = "IDEM107"
	// RuleSchemaNotGo: a schema that cannot become a Go type (a bad
	// x-go-type, a property name no struct tag can hold, a form body that
	// is not an object).
	RuleSchemaNotGo = "IDEM108"
	// RuleRoute: a path that cannot be mounted on a router.
	RuleRoute = "IDEM109"
	// RulePattern: a pattern of a request schema that Go's RE2 cannot
	// compile, so the generated decoder could not check it.
	RulePattern = "IDEM110"
)

// Verdict returns every error that keeps generate from generating doc,
// sorted by position: the spec's own findings at error severity and, when
// there are none, the planner's. idemgen check reports the same, so check
// passes exactly when generate succeeds.
func Verdict(doc *spec.Document) []spec.Diagnostic {
	var out []spec.Diagnostic
	for _, d := range spec.Check(doc, spec.CheckOptions{}) {
		if d.Severity == spec.SeverityError {
			out = append(out, d)
		}
	}
	if len(out) > 0 {
		return out
	}
	return PlannerVerdict(doc)
}

// PlannerVerdict returns the planner's reasons for refusing annotated
// operations of doc (the IDEM1xx rules), sorted by position; none when it
// would generate every one. It assumes the spec's own rules found no
// error.
func PlannerVerdict(doc *spec.Document) []spec.Diagnostic {
	_, diags := PlanSpec(doc, Options{Package: "verdict"})
	return diags
}
