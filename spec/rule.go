package spec

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Rule is one lint rule of idemgen check: a judgement of what a contract
// means. Its ID is stable: it names the rule in output, in docs/rules.md
// and in suppressions, and is never reused. What the generator cannot
// build (IDEM021, IDEM023, IDEM024, IDEM107 to IDEM110) is no rule of this
// package: the generator's planner alone decides it, and check reports it
// beside these rules' findings.
type Rule struct {
	// ID is the stable rule id, such as IDEM001.
	ID string
	// Name is a short kebab-case name for the rule.
	Name string
	// Severity is the severity of every finding of the rule.
	Severity Severity
	// Summary says in one line what the rule catches.
	Summary string
	// OptIn rules run only when CheckOptions enables them.
	OptIn bool

	check func(r *ruleRun)
	// enabledBy says whether CheckOptions turn an opt-in rule on.
	enabledBy func(CheckOptions) bool
}

// CheckOptions selects the optional rules Check runs.
type CheckOptions struct {
	// RequireMutations enables IDEM016: every POST, PUT, PATCH and DELETE
	// operation must carry an x-idempotency block.
	RequireMutations bool
}

// enabled reports whether the options turn on an opt-in rule.
func (o CheckOptions) enabled(r Rule) bool {
	return !r.OptIn || r.enabledBy(o)
}

// retiredRules are the ids of rules that no longer run; their ids are not
// reused. IDEM014 (halt-on-atomic) refused halt on atomic operations until
// the worker could halt an effect in requires_recovery.
var retiredRules = []string{"IDEM014"}

// Rules returns every lint rule in id order. The slice is a fresh copy.
func Rules() []Rule {
	rules := []Rule{
		ruleFingerprintPointerMissing,
		ruleNaturalKeyPointerMissing,
		ruleUnorderedNotArray,
		ruleNaturalKeyNotRequired,
		ruleRetentionShorterThanLease,
		ruleRetentionUnderADay,
		ruleEmptyScope,
		ruleVolatileFingerprint,
		ruleKeyHeaderUndocumented,
		ruleBodyKeyNotString,
		ruleDuplicateEffect,
		ruleEffectNameNotIdentifier,
		rulePhasedWithoutLease,
		ruleIdempotencyOnSafeMethod,
		ruleMutationWithoutIdempotency,
		ruleWaitTimeoutWithReject,
		ruleOptionalKey,
		ruleKeyParameterNotRequired,
		ruleNaturalKeyNotSignificant,
		ruleUnionNotValidated,
		ruleOneOfOverlap,
		ruleEffectPayloadNotFound,
		ruleEffectPayloadDiffers,
		rulePhasedWithoutSteps,
		ruleStepsOnAtomic,
		ruleDuplicateStep,
		ruleStepNameNotIdentifier,
		ruleExternalStepIncomplete,
		ruleCallSettingsOnLocalStep,
		ruleLastStepExternal,
		ruleStepTimeoutNotWithinLease,
		ruleHaltStepUndocumented,
		ruleStepOutputNotFound,
		ruleStatusRoute,
		ruleRetentionUnderSenderHorizon,
	}
	slices.SortFunc(rules, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	return rules
}

// Findings are what the rules of idemgen check found in one document.
type Findings struct {
	// Diagnostics are every finding, sorted by position and then rule id:
	// the document's defects and overlay warnings, and the rules' findings
	// at every severity.
	Diagnostics []Diagnostic
	// Unfit maps each annotated operation whose contract cannot be
	// generated as the document states it to the errors that say why,
	// sorted: the document defects that block it and the rules' error
	// findings on it. What the generator cannot build is not here: its
	// planner judges the operations this leaves out (generator.Judge).
	Unfit map[*Operation][]Diagnostic
}

// Check runs the lint rules on every operation of doc that is not blocked
// by a document defect, and returns the document's defects and overlay
// warnings (RuleOverlayWarning) together with the rules' findings.
func Check(doc *Document, opts CheckOptions) Findings {
	f := Findings{Diagnostics: append(slices.Clone(doc.Defects), WarningDiagnostics(doc)...), Unfit: map[*Operation][]Diagnostic{}}
	rules := Rules()
	for _, op := range doc.Operations {
		found := checkOperation(doc, op, rules, opts)
		f.Diagnostics = append(f.Diagnostics, found...)
		if op.Contract == nil && op.Status == nil {
			continue
		}
		unfit := slices.Clone(op.Blocked)
		for _, d := range found {
			if d.Severity == SeverityError {
				unfit = append(unfit, d)
			}
		}
		if len(unfit) > 0 {
			SortDiagnostics(unfit)
			f.Unfit[op] = unfit
		}
	}
	SortDiagnostics(f.Diagnostics)
	return f
}

// checkOperation runs the enabled rules on one operation; an operation a
// document defect blocks is not checked.
func checkOperation(doc *Document, op *Operation, rules []Rule, opts CheckOptions) []Diagnostic {
	if len(op.Blocked) > 0 {
		return nil
	}
	var diags []Diagnostic
	for _, rule := range rules {
		if !opts.enabled(rule) {
			continue
		}
		run := &ruleRun{rule: rule, doc: doc, op: op, c: op.Contract}
		rule.check(run)
		diags = append(diags, run.found...)
	}
	return diags
}

// SortDiagnostics orders diagnostics by position, then rule id, then
// message, so output is the same whatever order they were found in.
func SortDiagnostics(diags []Diagnostic) {
	slices.SortStableFunc(diags, func(a, b Diagnostic) int {
		switch {
		case a.Pos.Before(b.Pos):
			return -1
		case b.Pos.Before(a.Pos):
			return 1
		}
		if c := strings.Compare(a.Rule, b.Rule); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

// ruleRun is one rule applied to one operation; the rule reports its
// findings through it.
type ruleRun struct {
	rule  Rule
	doc   *Document
	op    *Operation
	c     *Contract
	found []Diagnostic
}

// report records a finding of the running rule.
func (r *ruleRun) report(pos Position, path, message, hint string) {
	r.found = append(r.found, Diagnostic{
		Pos:      pos,
		Severity: r.rule.Severity,
		Rule:     r.rule.ID,
		Path:     path,
		Message:  message,
		Hint:     hint,
	})
}

// opName names the operation in messages: its operationId, or METHOD path.
func (r *ruleRun) opName() string { return opLabel(r.op) }

// originPos returns the position kin-openapi recorded for an object of the
// document, or fallback when it recorded none.
func (r *ruleRun) originPos(o *openapi3.Origin, fallback Position) Position {
	if o == nil || o.Key == nil {
		return fallback
	}
	file := o.Key.File
	if file == "" {
		file = r.doc.Path
	}
	return Position{File: file, Line: o.Key.Line, Col: o.Key.Column}
}
