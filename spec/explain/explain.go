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
	// Blocked holds one sentence per document defect that keeps the
	// operation from being generated.
	Blocked []string
	Items   []Item
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

// Build explains every annotated operation of doc, in document order.
func Build(doc *spec.Document) Report {
	r := Report{File: doc.Path}
	annotated := 0
	for _, op := range doc.Operations {
		if op.Contract == nil {
			if spec.IsMutatingMethod(op.Method) {
				r.Unprotected = append(r.Unprotected, fmt.Sprintf("`%s`", opRef(op)))
			}
			continue
		}
		annotated++
		r.Sections = append(r.Sections, section(op))
	}
	r.Summary = fmt.Sprintf("%d of %d operations carry an idempotency contract.", annotated, len(doc.Operations))
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

// section explains the contract of one annotated operation.
func section(op *spec.Operation) Section {
	c := op.Contract
	s := Section{Title: title(op)}
	for _, d := range op.Blocked {
		s.Blocked = append(s.Blocked, fmt.Sprintf("%s: %s", d.Pos, d.Message))
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
		{"Mode", modeSentence(c)},
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
	s.EffectsIntro = "Each runs after the operation commits, through the outbox, with its own stable effect key that is passed on to the provider."
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
