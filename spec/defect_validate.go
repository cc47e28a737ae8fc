package spec

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// opValidator runs kin-openapi's validation per operation, but validates
// each distinct schema only once per load. Operation.Validate re-validates
// every schema an operation reaches, so on a spec whose 468 operations
// share the same component schemas (Stripe) it repeats the same work
// hundreds of times. Here each operation is validated as a shell whose
// schemas are replaced by an empty one, and the schemas it had are
// validated separately, remembered by identity.
type opValidator struct {
	opts    []openapi3.ValidationOption
	schemas map[*openapi3.Schema]error
}

// newOpValidator returns a validator with the options for doc's OpenAPI
// version, examples and schema defaults left alone.
func newOpValidator(doc *openapi3.T) *opValidator {
	opts := []openapi3.ValidationOption{
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		// A pattern RE2 cannot compile is the planner's IDEM110, reported
		// at the pattern rather than at the operation.
		openapi3.DisableSchemaPatternValidation(),
	}
	if doc.IsOpenAPI31OrLater() {
		opts = append(opts, openapi3.IsOpenAPI31OrLater())
	}
	return &opValidator{opts: opts, schemas: map[*openapi3.Schema]error{}}
}

// validate returns what kin-openapi's validation finds wrong with op, or
// nil.
func (v *opValidator) validate(ctx context.Context, op *openapi3.Operation) error {
	shell, sites := stripSchemas(op)
	if err := shell.Validate(ctx, v.opts...); err != nil {
		return err
	}
	for _, s := range sites {
		if err := v.schema(ctx, s.schema); err != nil {
			return fmt.Errorf("schema of %s: %w", s.where, err)
		}
	}
	return nil
}

// schema validates s, at most once per distinct schema.
func (v *opValidator) schema(ctx context.Context, s *openapi3.SchemaRef) error {
	if s.Value == nil {
		return s.Validate(ctx, v.opts...)
	}
	if err, ok := v.schemas[s.Value]; ok {
		return err
	}
	err := s.Validate(ctx, v.opts...)
	v.schemas[s.Value] = err
	return err
}

// schemaSite is a schema an operation uses directly and where it uses it.
type schemaSite struct {
	where  string
	schema *openapi3.SchemaRef
}

// stripSchemas returns a copy of op whose parameter, request body, response
// and response header schemas are replaced by an empty schema, and the
// schemas it replaced. op itself is not changed. Callbacks are kept whole.
func stripSchemas(op *openapi3.Operation) (*openapi3.Operation, []schemaSite) {
	s := stripper{empty: &openapi3.SchemaRef{Value: &openapi3.Schema{}}}
	shell := *op
	if op.Parameters != nil {
		shell.Parameters = make(openapi3.Parameters, len(op.Parameters))
		for i, p := range op.Parameters {
			shell.Parameters[i] = s.parameter(p)
		}
	}
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		body := *rb.Value
		body.Content = s.content(rb.Value.Content, "the request body")
		ref := *rb
		ref.Value = &body
		shell.RequestBody = &ref
	}
	if r := op.Responses; r != nil && r.Len() > 0 {
		shell.Responses = openapi3.NewResponsesWithCapacity(r.Len())
		shell.Responses.Extensions = r.Extensions
		shell.Responses.Origin = r.Origin
		for _, code := range slices.Sorted(maps.Keys(r.Map())) {
			shell.Responses.Set(code, s.response(r.Value(code), code))
		}
	}
	return &shell, s.sites
}

// stripper collects the schemas it replaces while copying an operation.
type stripper struct {
	empty *openapi3.SchemaRef
	sites []schemaSite
}

// take records schema at where and returns the stand-in for it.
func (s *stripper) take(schema *openapi3.SchemaRef, where string) *openapi3.SchemaRef {
	if schema == nil {
		return nil
	}
	s.sites = append(s.sites, schemaSite{where: where, schema: schema})
	return s.empty
}

// parameter copies a parameter with its schemas replaced.
func (s *stripper) parameter(p *openapi3.ParameterRef) *openapi3.ParameterRef {
	if p == nil || p.Value == nil {
		return p
	}
	v := *p.Value
	s.schemas(&v, fmt.Sprintf("parameter %q", p.Value.Name))
	ref := *p
	ref.Value = &v
	return &ref
}

// schemas replaces the schemas of a parameter or a header (a Header is a
// Parameter) in place; where names it in messages.
func (s *stripper) schemas(p *openapi3.Parameter, where string) {
	p.Schema = s.take(p.Schema, where)
	p.Content = s.content(p.Content, where)
}

// response copies the response for status code with the schemas of its
// content and headers replaced.
func (s *stripper) response(r *openapi3.ResponseRef, code string) *openapi3.ResponseRef {
	if r == nil || r.Value == nil {
		return r
	}
	where := "response " + code
	v := *r.Value
	v.Content = s.content(r.Value.Content, where)
	if r.Value.Headers != nil {
		v.Headers = make(openapi3.Headers, len(r.Value.Headers))
		for name, h := range r.Value.Headers {
			if h == nil || h.Value == nil {
				v.Headers[name] = h
				continue
			}
			hv := *h.Value
			s.schemas(&hv.Parameter, fmt.Sprintf("header %q of %s", name, where))
			href := *h
			href.Value = &hv
			v.Headers[name] = &href
		}
	}
	ref := *r
	ref.Value = &v
	return &ref
}

// content copies c with each media type's schema replaced; where names the
// place of c in messages.
func (s *stripper) content(c openapi3.Content, where string) openapi3.Content {
	if c == nil {
		return nil
	}
	out := make(openapi3.Content, len(c))
	for _, mt := range slices.Sorted(maps.Keys(c)) {
		m := c[mt]
		if m == nil {
			out[mt] = m
			continue
		}
		cp := *m
		cp.Schema = s.take(m.Schema, where+" "+mt)
		out[mt] = &cp
	}
	return out
}
