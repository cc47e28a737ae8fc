package spec

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// SecretFields returns the names of the JSON fields that the schemas of
// the document's annotated operations mark as secrets, writeOnly or
// format: password, sorted and without repeats: in their request and
// response bodies, their effects' payloads and their steps' outputs.
// Support's views (idemops.Config.SecretFields) hide the value of a field
// of such a name wherever it appears, which hides more than the schema
// marks and never less.
func (d *Document) SecretFields() []string {
	if d == nil || d.OpenAPI == nil {
		return nil
	}
	w := secretWalk{seen: map[*openapi3.Schema]bool{}, names: map[string]bool{}}
	for _, op := range d.Operations {
		if op.Contract == nil || op.Op == nil {
			continue
		}
		if rb := op.Op.RequestBody; rb != nil && rb.Value != nil {
			w.content(rb.Value.Content)
		}
		if op.Op.Responses != nil {
			for _, r := range op.Op.Responses.Map() {
				if r != nil && r.Value != nil {
					w.content(r.Value.Content)
				}
			}
		}
		for _, e := range op.Contract.Effects {
			w.component(d.OpenAPI.Components, e.Payload)
		}
		for _, s := range op.Contract.Steps {
			w.component(d.OpenAPI.Components, s.Output)
		}
	}
	names := make([]string, 0, len(w.names))
	for n := range w.names {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// secretWalk visits schemas once each, collecting secret field names.
type secretWalk struct {
	seen  map[*openapi3.Schema]bool
	names map[string]bool
}

func (w *secretWalk) content(c openapi3.Content) {
	for _, mt := range c {
		if mt != nil {
			w.schema(mt.Schema)
		}
	}
}

// component visits the component schema a contract's reference names.
func (w *secretWalk) component(c *openapi3.Components, ref Field[string]) {
	name, ok := strings.CutPrefix(ref.Value, "#/components/schemas/")
	if !ref.Set || !ok || c == nil {
		return
	}
	w.schema(c.Schemas[name])
}

func (w *secretWalk) schema(ref *openapi3.SchemaRef) {
	if ref == nil || ref.Value == nil || w.seen[ref.Value] {
		return
	}
	s := ref.Value
	w.seen[s] = true
	for name, p := range s.Properties {
		if p != nil && p.Value != nil && (p.Value.WriteOnly || p.Value.Format == "password") {
			w.names[name] = true
		}
		w.schema(p)
	}
	w.schema(s.Items)
	if s.AdditionalProperties.Schema != nil {
		w.schema(s.AdditionalProperties.Schema)
	}
	for _, list := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf, s.AnyOf} {
		for _, x := range list {
			w.schema(x)
		}
	}
}
