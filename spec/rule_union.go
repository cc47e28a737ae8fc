package spec

import (
	"fmt"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// The rule on what the generated decoders leave unchecked: a oneOf or
// anyOf union of a JSON request body is kept whole, as the client sent it,
// held to the decoder's strictness but not checked against its branches.

var ruleUnionNotValidated = Rule{
	ID:       "IDEM026",
	Name:     "union-not-validated",
	Severity: SeverityWarning,
	Summary:  "a oneOf/anyOf union of a JSON request body, which the generated decoder does not check against its branches",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		kind, media, _ := generatedBody(r.op)
		if kind != mediaJSON || media.Schema == nil {
			return
		}
		walkUnions(media.Schema.Value, pointer{}, map[*openapi3.Schema]bool{}, func(s *openapi3.Schema, at pointer) {
			r.report(r.originPos(s.Origin, r.op.Pos), "requestBody",
				fmt.Sprintf("%s of the request body of %s is a oneOf/anyOf union: the generated decoder checks it for strict JSON (exact, unique member names, safe strings, exact numbers) but not against its branches", orBody(at), r.opName()),
				"validate the union in the business method, or give the schema one shape (a discriminated object with the branches' properties) that the decoder checks")
		})
	},
}

// walkUnions calls visit for every union below s, with its pointer; it
// does not walk into a union, which the decoder keeps whole.
func walkUnions(s *openapi3.Schema, at pointer, onPath map[*openapi3.Schema]bool, visit func(*openapi3.Schema, pointer)) {
	if s == nil || onPath[s] || len(at) > maxWalkDepth {
		return
	}
	onPath[s] = true
	defer delete(onPath, s)
	branches := 0
	for _, b := range slices.Concat(s.OneOf, s.AnyOf) {
		if b != nil && b.Value != nil && !(b.Value.Type != nil && b.Value.Type.Is(openapi3.TypeNull)) {
			branches++
		}
	}
	if branches > 1 {
		visit(s, at)
		return
	}
	if s.Items != nil {
		walkUnions(s.Items.Value, append(slices.Clone(at), "*"), onPath, visit)
	}
	if ap := s.AdditionalProperties.Schema; ap != nil {
		walkUnions(ap.Value, append(slices.Clone(at), "*"), onPath, visit)
	}
	for _, part := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if part != nil {
			walkUnions(part.Value, at, onPath, visit)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if ref := s.Properties[name]; ref != nil {
			walkUnions(ref.Value, append(slices.Clone(at), name), onPath, visit)
		}
	}
}
