package spec

import (
	"slices"
	"strings"
)

// Rule is one lint rule of idemgen check. Its ID is stable: it names the
// rule in output, in docs/rules.md and in suppressions, and is never reused.
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
		rulePhasedNotGenerated,
		ruleWebhookNotGenerated,
		ruleReplayCurrentNotGenerated,
		ruleRequestBodyNotGenerated,
		rulePointerNotWalkable,
		ruleNaturalKeyNotSignificant,
		ruleUnionNotValidated,
		ruleOneOfOverlap,
		ruleEffectPayloadNotFound,
		ruleEffectPayloadDiffers,
	}
	slices.SortFunc(rules, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })
	return rules
}

// Check runs the lint rules on every operation of doc that is not blocked
// by a document defect, and returns the document's defects and overlay
// warnings (RuleOverlayWarning) together with the rules' findings, sorted
// by position and then rule id.
func Check(doc *Document, opts CheckOptions) []Diagnostic {
	diags := append(slices.Clone(doc.Defects), WarningDiagnostics(doc)...)
	rules := Rules()
	for _, op := range doc.Operations {
		diags = append(diags, checkOperation(doc, op, rules, opts)...)
	}
	SortDiagnostics(diags)
	return diags
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

// NotGenerated returns why the annotated operation op of doc is not
// generated: the document defects that block it and the error findings of
// the rules on its contract, sorted. It is empty when op has no contract
// or is generated as its contract says, which is exactly when check
// reports no error about it.
func NotGenerated(doc *Document, op *Operation) []Diagnostic {
	if op.Contract == nil {
		return nil
	}
	out := slices.Clone(op.Blocked)
	for _, d := range checkOperation(doc, op, Rules(), CheckOptions{}) {
		if d.Severity == SeverityError {
			out = append(out, d)
		}
	}
	SortDiagnostics(out)
	return out
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
