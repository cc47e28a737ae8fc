package explain

import (
	"fmt"
	"io"
	"text/template"

	"github.com/idemgen/idemgen/spec"
	"github.com/idemgen/idemgen/templates"
)

// Verdict is idemgen generate's judgement of the document, passed in as
// data: explain describes no operation that generate would not generate,
// and does not judge again.
type Verdict struct {
	// Errors are every error that keeps generate from generating the
	// document; none when it generates every annotated operation.
	Errors []spec.Diagnostic
	// Operations maps each annotated operation with errors of its own to
	// them: the document defects that block it, the rules' error findings
	// on its contract and the generator's refusals of it. An error of
	// Errors that is no operation's own (a schema several operations
	// share, a dangling $ref) is not here.
	Operations map[*spec.Operation][]spec.Diagnostic
}

// Report is what the explain template lays out. Every sentence is final.
type Report struct {
	// File is the spec path as given.
	File string
	// Summary says how many operations are annotated, and whether
	// generate generates them.
	Summary string
	// Refused holds one line per error that keeps generate from
	// generating the spec and that is no single operation's own.
	Refused []string
	// Unprotected names the mutating operations without a contract.
	Unprotected []string
	Sections    []Section
}

// Section explains the contract of one operation.
type Section struct {
	// Title is "operationId — METHOD /path".
	Title string
	// NotGenerated holds one line per error that keeps the operation from
	// being generated: a document defect that blocks it, an error finding
	// of idemgen check on its contract, or a refusal of the generator; or,
	// when it has none of its own but generate refuses the spec, one line
	// that says so. When there is any, Unkept says what that means and
	// Items is empty: the section describes no guarantee that no code
	// keeps.
	NotGenerated []string
	Unkept       string
	// AsWrittenIntro and AsWritten explain, in a section that is not
	// generated, what a phased contract asks for (its mode, lease,
	// completer and steps), introduced as kept by no code, so that a
	// reviewer can judge the contract before it is generated. Empty for
	// an atomic operation, and for a generated one, whose Items say it.
	AsWrittenIntro string
	AsWritten      []Item
	Items          []Item
}

// Item is one labelled paragraph of a section, with the lines it lists,
// such as one per effect or step.
type Item struct {
	Label string
	Text  string
	List  []string
}

// Build explains every annotated operation of doc, in document order, as
// far as the verdict lets it: an operation that is not generated gets the
// reasons instead of guarantees, and while generate refuses the spec no
// operation is described as kept.
func Build(doc *spec.Document, v Verdict) Report {
	r := Report{File: doc.Path}
	own := map[spec.Diagnostic]bool{}
	var withErrors []string
	annotated := 0
	for _, op := range doc.Operations {
		if op.Contract == nil {
			if spec.IsMutatingMethod(op.Method) {
				r.Unprotected = append(r.Unprotected, fmt.Sprintf("`%s`", opRef(op)))
			}
			continue
		}
		annotated++
		if errs := v.Operations[op]; len(errs) > 0 {
			withErrors = append(withErrors, fmt.Sprintf("`%s`", title(op)))
			for _, d := range errs {
				own[d] = true
			}
		}
	}
	for _, d := range v.Errors {
		if !own[d] {
			r.Refused = append(r.Refused, reason(d))
		}
	}
	var because []string
	if len(withErrors) > 0 {
		because = append(because, "the errors of "+join(withErrors, "and"))
	}
	if len(r.Refused) > 0 {
		because = append(because, "the errors given at the top")
	}
	for _, op := range doc.Operations {
		if op.Contract != nil {
			r.Sections = append(r.Sections, withStatus(section(op, v, join(because, "and")), doc, op))
		}
	}
	r.Summary = fmt.Sprintf("%d of %d operations carry an idempotency contract.", annotated, len(doc.Operations))
	switch {
	case len(v.Errors) == 0:
	case annotated == 0:
		r.Summary += " idemgen generate refuses this spec for the errors given below."
	case annotated == 1:
		r.Summary += " It is not generated: idemgen generate refuses the spec for the errors given below."
	default:
		r.Summary += " None of them is generated: idemgen generate refuses the whole spec for the errors given below."
	}
	return r
}

// Render writes the explanation of doc, under the verdict, as Markdown.
func Render(w io.Writer, doc *spec.Document, v Verdict) error {
	t, err := template.ParseFS(templates.FS, templates.ExplainMarkdown)
	if err != nil {
		return fmt.Errorf("parse explain template: %w", err)
	}
	return t.Execute(w, Build(doc, v))
}

// reason words one error that keeps code from being generated.
func reason(d spec.Diagnostic) string {
	return fmt.Sprintf("%s: %s (%s)", d.Pos, d.Message, d.Rule)
}

// section explains the contract of one annotated operation, or says why
// it is not generated: its own errors, or, when it has none but generate
// refuses the spec, because of which errors (because) it is refused.
func section(op *spec.Operation, v Verdict, because string) Section {
	c := op.Contract
	s := Section{Title: title(op)}
	if errs := v.Operations[op]; len(errs) > 0 {
		for _, d := range errs {
			s.NotGenerated = append(s.NotGenerated, reason(d))
		}
		s.Unkept = "No generated code keeps this contract until that is fixed, so this page promises none of its guarantees."
		s.asWritten(c)
		return s
	}
	if len(v.Errors) > 0 {
		s.NotGenerated = []string{"this contract has no error of its own, but idemgen generate refuses the whole spec for " + because + ", so no code is generated for it either."}
		s.Unkept = "No generated code keeps this contract until those are fixed, so this page promises none of its guarantees."
		s.asWritten(c)
		return s
	}
	if c.Consumer != nil {
		s.Items = consumerItems(op)
		return s
	}
	sig := significant(op)
	s.Items = []Item{
		{Label: "Retry", Text: retrySentence(c)},
		{Label: "Scope", Text: scopeSentence(c)},
		{Label: "Significant fields", Text: sig.sentence()},
		{Label: "Replay", Text: replaySentence(op, sig)},
		{Label: "Expiry", Text: expirySentence(c)},
		{Label: "Concurrent duplicate", Text: concurrencySentence(c)},
		{Label: "Failures", Text: failuresSentence(c)},
	}
	if src := overlaySentence(op); src != "" {
		s.Items = append([]Item{{Label: "Source", Text: src}}, s.Items...)
	}
	if c.Mode.Value == spec.ModePhased {
		s.Items = append(s.Items, phasedItems(c)...)
	} else {
		s.Items = append(s.Items, Item{Label: "Mode", Text: atomicSentence})
	}
	if len(c.NaturalKey) > 0 {
		s.Items = append(s.Items, Item{Label: "Natural key", Text: naturalKeySentence(c)})
	}
	s.Items = append(s.Items, effectsItem(c))
	return s
}

// asWritten explains the phased part of a contract that is not generated,
// as written and kept by no code; it does nothing for an atomic one.
func (s *Section) asWritten(c *spec.Contract) {
	if c.Mode.Value != spec.ModePhased {
		return
	}
	s.AsWrittenIntro = "What the phased contract asks for, as written, for review: no generated code keeps any of it yet."
	s.AsWritten = phasedItems(c)
}

// effectsItem explains the side effects of the contract.
func effectsItem(c *spec.Contract) Item {
	if len(c.Effects) == 0 {
		return Item{Label: "Effects", Text: "None declared."}
	}
	it := Item{Label: "Effects", Text: "Each is written to the outbox in the operation's transaction and executed after the commit by the service's effect worker (`idem.Worker`), which passes the effect's own stable key on to the provider. A call the provider definitely did not carry out is repeated after a backoff; one it refused for good is recorded as failed; once the worker's attempts (10 by default) are spent the effect is dead and waits for `idemgen ops`. The operation's stored response never depends on its effects."}
	for _, e := range c.Effects {
		it.List = append(it.List, effectSentence(e))
	}
	return it
}

// title is the section heading: operationId — METHOD /path, or METHOD
// /path alone when there is no operationId.
func title(op *spec.Operation) string {
	if op.ID == "" {
		return opRef(op)
	}
	return op.ID + " — " + opRef(op)
}

// opRef names the operation: METHOD /path, or "webhook name (METHOD)".
func opRef(op *spec.Operation) string {
	if op.Webhook {
		return fmt.Sprintf("webhook %s (%s)", op.Path, op.Method)
	}
	return op.Method + " " + op.Path
}
