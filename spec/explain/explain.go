package explain

import (
	"fmt"
	"io"
	"text/template"

	"github.com/idemgen/idemgen/spec"
	"github.com/idemgen/idemgen/templates"
)

// Report is what the explain template lays out. Every sentence is final.
type Report struct {
	// File is the spec path as given.
	File string
	// Summary says how many operations are annotated.
	Summary string
	// Unprotected names the mutating operations without a contract.
	Unprotected []string
	Sections    []Section
}

// Section explains the contract of one operation.
type Section struct {
	// Title is "operationId — METHOD /path".
	Title string
	// NotGenerated holds one line per error that keeps the operation from
	// being generated: a document defect that blocks it, or an error
	// finding of idemgen check on its contract. When there is any, Unkept
	// says what that means and Items and Effects are empty: the section
	// describes no guarantee that no code keeps.
	NotGenerated []string
	Unkept       string
	Items        []Item
	// EffectsIntro and Effects explain the side effects; Effects is empty
	// when the operation declares none.
	EffectsIntro string
	Effects      []string
}

// Item is one labelled paragraph of a section.
type Item struct {
	Label string
	Text  string
}

// Build explains every annotated operation of doc, in document order; an
// operation that is not generated gets the reasons instead of guarantees.
func Build(doc *spec.Document) Report {
	r := Report{File: doc.Path}
	annotated, notGenerated := 0, 0
	for _, op := range doc.Operations {
		if op.Contract == nil {
			if spec.IsMutatingMethod(op.Method) {
				r.Unprotected = append(r.Unprotected, fmt.Sprintf("`%s`", opRef(op)))
			}
			continue
		}
		annotated++
		s := section(doc, op)
		if len(s.NotGenerated) > 0 {
			notGenerated++
		}
		r.Sections = append(r.Sections, s)
	}
	r.Summary = fmt.Sprintf("%d of %d operations carry an idempotency contract.", annotated, len(doc.Operations))
	switch notGenerated {
	case 0:
	case 1:
		r.Summary += " 1 of them is not generated, for the reasons given below."
	default:
		r.Summary += fmt.Sprintf(" %d of them are not generated, for the reasons given below.", notGenerated)
	}
	return r
}

// Render writes the explanation of doc as Markdown.
func Render(w io.Writer, doc *spec.Document) error {
	t, err := template.ParseFS(templates.FS, templates.ExplainMarkdown)
	if err != nil {
		return fmt.Errorf("parse explain template: %w", err)
	}
	return t.Execute(w, Build(doc))
}

// section explains the contract of one annotated operation of doc, or
// says why it is not generated.
func section(doc *spec.Document, op *spec.Operation) Section {
	c := op.Contract
	s := Section{Title: title(op)}
	if reasons := spec.NotGenerated(doc, op); len(reasons) > 0 {
		for _, d := range reasons {
			s.NotGenerated = append(s.NotGenerated, fmt.Sprintf("%s: %s (%s)", d.Pos, d.Message, d.Rule))
		}
		s.Unkept = "No generated code keeps this contract until that is fixed, so this page promises none of its guarantees."
		return s
	}
	sig := significant(op)
	s.Items = []Item{
		{"Retry", retrySentence(c)},
		{"Scope", scopeSentence(c)},
		{"Significant fields", sig.sentence()},
		{"Replay", replaySentence(op, sig)},
		{"Expiry", expirySentence(c)},
		{"Concurrent duplicate", concurrencySentence(c)},
		{"Failures", failuresSentence(c)},
		{"Mode", modeSentence},
	}
	if src := overlaySentence(op); src != "" {
		s.Items = append([]Item{{"Source", src}}, s.Items...)
	}
	if len(c.NaturalKey) > 0 {
		s.Items = append(s.Items, Item{"Natural key", naturalKeySentence(c)})
	}
	if len(c.Effects) == 0 {
		s.Items = append(s.Items, Item{"Effects", "None declared."})
		return s
	}
	s.EffectsIntro = "Each is written to the outbox in the operation's transaction and executed after the commit by the service's effect worker (`idem.Worker`), which passes the effect's own stable key on to the provider. A call the provider definitely did not carry out is repeated after a backoff; one it refused for good is recorded as failed; once the worker's attempts (10 by default) are spent the effect is dead and waits for `idemgen ops`. The operation's stored response never depends on its effects."
	for _, e := range c.Effects {
		s.Effects = append(s.Effects, effectSentence(e))
	}
	return s
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
