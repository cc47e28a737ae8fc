package spec

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// danglingRefsOf returns the indexes into loader.dangling of the dangling
// references op reaches through its parameters, request body, responses
// and the schemas below them, each once and in ascending order.
func danglingRefsOf(op *Operation) []int {
	w := refWalker{seen: map[*openapi3.Schema]bool{}, found: map[int]bool{}}
	for _, params := range []openapi3.Parameters{op.PathItem.Parameters, op.Op.Parameters} {
		for _, p := range params {
			w.parameter(p)
		}
	}
	if rb := op.Op.RequestBody; rb != nil {
		w.ref(rb.Ref)
		if rb.Value != nil {
			w.content(rb.Value.Content)
		}
	}
	if op.Op.Responses != nil {
		for _, r := range op.Op.Responses.Map() {
			if r == nil {
				continue
			}
			w.ref(r.Ref)
			if r.Value != nil {
				w.content(r.Value.Content)
				for _, h := range r.Value.Headers {
					if h != nil {
						w.ref(h.Ref)
						if h.Value != nil {
							w.schema(h.Value.Schema)
						}
					}
				}
			}
		}
	}
	out := make([]int, 0, len(w.found))
	for i := range w.found {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// refWalker collects the placeholder numbers of replaced dangling
// references, visiting each schema once so recursive schemas end.
type refWalker struct {
	seen  map[*openapi3.Schema]bool
	found map[int]bool
}

// ref notes ref if it is a placeholder for a dangling reference.
func (w *refWalker) ref(ref string) {
	base := path.Base(ref)
	if !strings.HasPrefix(base, danglingPrefix) {
		return
	}
	i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(base, danglingPrefix), ".json"))
	if err == nil {
		w.found[i] = true
	}
}

// parameter walks a parameter's reference, schema and content.
func (w *refWalker) parameter(p *openapi3.ParameterRef) {
	if p == nil {
		return
	}
	w.ref(p.Ref)
	if p.Value != nil {
		w.schema(p.Value.Schema)
		w.content(p.Value.Content)
	}
}

// content walks the schema of each media type.
func (w *refWalker) content(c openapi3.Content) {
	for _, mt := range c {
		if mt != nil {
			w.schema(mt.Schema)
		}
	}
}

// schema walks a schema reference and every schema below it, each once.
func (w *refWalker) schema(s *openapi3.SchemaRef) {
	if s == nil {
		return
	}
	w.ref(s.Ref)
	v := s.Value
	if v == nil || w.seen[v] {
		return
	}
	w.seen[v] = true
	for _, list := range []openapi3.SchemaRefs{v.AllOf, v.AnyOf, v.OneOf, v.PrefixItems} {
		for _, c := range list {
			w.schema(c)
		}
	}
	for _, one := range []*openapi3.SchemaRef{v.Not, v.Items, v.AdditionalProperties.Schema, v.Contains, v.PropertyNames, v.If, v.Then, v.Else} {
		w.schema(one)
	}
	for _, m := range []openapi3.Schemas{v.Properties, v.PatternProperties, v.DependentSchemas} {
		for _, c := range m {
			w.schema(c)
		}
	}
}
