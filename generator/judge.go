package generator

import (
	"github.com/idemgen/idemgen/spec"
)

// Judgement is idemgen's one answer to "can this spec be generated",
// computed once: what the spec's rules find (what the contracts mean),
// what the planner refuses (what the generator cannot build) and, when
// neither is an error, the plan that Generate emits. idemgen check reports
// its Diagnostics, idemgen explain describes the document under its
// errors, and idemgen generate emits its Plan, so the three cannot
// disagree.
type Judgement struct {
	// Doc is the judged document.
	Doc *spec.Document
	// Diagnostics are every finding, sorted by position and then rule id:
	// the spec's (spec.Check: the document's defects, overlay warnings and
	// the rules' findings at every severity) and the planner's refusals.
	Diagnostics []spec.Diagnostic
	// Unfit maps each annotated operation with errors of its own to them,
	// sorted: the document defects that block it, the rules' error
	// findings on its contract, and the planner's refusals of it. An error
	// of no single operation (a dangling $ref elsewhere, a schema planned
	// for several operations) is in Diagnostics only.
	Unfit map[*spec.Operation][]spec.Diagnostic
	// Plan is what Generate emits; nil when any diagnostic is an error.
	Plan *Plan
}

// Judge judges doc: it runs the spec's rules, then plans every annotated
// operation they find no error in, so that a spec with errors still shows
// all the planner's refusals of its other operations at once. The planner
// never sees an operation with a spec error, whose contract may not mean
// anything it could build.
func Judge(doc *spec.Document, opts spec.CheckOptions) *Judgement {
	found := spec.Check(doc, opts)
	j := &Judgement{Doc: doc, Diagnostics: found.Diagnostics, Unfit: found.Unfit}
	var fit []*spec.Operation
	for _, op := range doc.Operations {
		if (op.Contract != nil || op.Status != nil) && len(found.Unfit[op]) == 0 {
			fit = append(fit, op)
		}
	}
	plan, refusals := planSpec(doc, fit)
	for _, r := range refusals {
		j.Diagnostics = append(j.Diagnostics, r.Diagnostic)
		if r.op != nil {
			j.Unfit[r.op] = append(j.Unfit[r.op], r.Diagnostic)
		}
	}
	spec.SortDiagnostics(j.Diagnostics)
	for _, diags := range j.Unfit {
		spec.SortDiagnostics(diags)
	}
	if len(j.Errors()) == 0 {
		j.Plan = plan
	}
	return j
}

// Errors returns the diagnostics at error severity, sorted: generate
// refuses the document when there is any.
func (j *Judgement) Errors() []spec.Diagnostic {
	var out []spec.Diagnostic
	for _, d := range j.Diagnostics {
		if d.Severity == spec.SeverityError {
			out = append(out, d)
		}
	}
	return out
}

// refusal is one reason the planner does not generate: a diagnostic of
// one of its rules and the operation it keeps from being generated; op is
// nil when the reason is no single operation's.
type refusal struct {
	spec.Diagnostic
	op *spec.Operation
}
