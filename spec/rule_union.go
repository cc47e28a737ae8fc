package spec

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
)

// The rule on what the generated decoders leave unchecked. A oneOf or
// anyOf union of a JSON request body is kept whole, as the client sent
// it, and checked against its branches; UncheckedUnion says which unions
// the decoder cannot check, and this rule reports them.

var ruleUnionNotValidated = Rule{
	ID:       "IDEM026",
	Name:     "union-not-validated",
	Severity: SeverityWarning,
	Summary:  "a oneOf/anyOf union of a JSON request body that the generated decoder cannot check against its branches",
	check: func(r *ruleRun) {
		eachBodyUnion(r, func(s *openapi3.Schema, at pointer) {
			why := UncheckedUnion(s)
			if why == "" {
				return
			}
			r.report(r.originPos(s.Origin, r.op.Pos), "requestBody",
				fmt.Sprintf("%s of the request body of %s is a oneOf/anyOf union the generated decoder cannot check against its branches: %s; it checks the value for strict JSON only (exact, unique member names, safe strings, exact numbers)", orBody(at), r.opName(), why),
				"validate the union in the business method, or give it branches of their own shape and nothing beside them")
		})
	},
}

var ruleOneOfOverlap = Rule{
	ID:       "IDEM029",
	Name:     "oneof-branches-overlap",
	Severity: SeverityWarning,
	Summary:  "a oneOf of a JSON request body with an open object branch that requires no member, which the other branches' objects match too",
	check: func(r *ruleRun) {
		eachBodyUnion(r, func(s *openapi3.Schema, at pointer) {
			if len(s.OneOf) == 0 || s.Discriminator != nil || UncheckedUnion(s) != "" {
				return
			}
			open, objects := 0, 0
			for i, b := range nonNullBranches(s.OneOf) {
				if b == nil || b.Value == nil {
					continue
				}
				v := b.Value
				if !(v.Type != nil && v.Type.Is(openapi3.TypeObject) || len(v.Properties) > 0) {
					continue
				}
				objects++
				closed := v.AdditionalProperties.Has != nil && !*v.AdditionalProperties.Has
				if open == 0 && len(v.Required) == 0 && !closed {
					open = i + 1
				}
			}
			if open == 0 || objects < 2 {
				return
			}
			r.report(r.originPos(s.Origin, r.op.Pos), "requestBody",
				fmt.Sprintf("%s of the request body of %s is a oneOf whose %s branch is an object that requires no member and allows others: an object another branch accepts matches it too (unless a member breaks its properties), and the generated decoder refuses a value that matches two branches of a oneOf", orBody(at), r.opName(), Ordinal(open)),
				"write anyOf if a value may match several branches, or give each branch a required member of its own, or add a discriminator")
		})
	},
}

// Ordinal words n, counted from 1, as an English ordinal: first,
// second, …, tenth, 11th, 21st. Diagnostics and generated comments name
// the branches of a union with it.
func Ordinal(n int) string {
	words := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	if n >= 1 && n <= len(words) {
		return words[n-1]
	}
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// eachBodyUnion calls visit for every union of the JSON request body of
// an annotated operation, with its pointer.
func eachBodyUnion(r *ruleRun, visit func(*openapi3.Schema, pointer)) {
	if r.c == nil {
		return
	}
	kind, media := requestMedia(r.op)
	if kind != MediaJSON || media.Schema == nil {
		return
	}
	walkUnions(media.Schema.Value, pointer{}, map[*openapi3.Schema]bool{}, visit)
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
	for _, b := range nonNullBranches(slices.Concat(s.OneOf, s.AnyOf)) {
		if b != nil && b.Value != nil {
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

// UncheckedUnion reports why the generated decoder cannot check a value
// against the oneOf or anyOf branches of s, or "" when it can: a union
// with properties beside its branches, with both oneOf and anyOf, or with
// a free-form branch (one that every value matches, which says nothing).
// Null branches do not count: null is the value's nullability.
func UncheckedUnion(s *openapi3.Schema) string {
	switch {
	case len(s.Properties) > 0:
		return "it has properties beside its branches"
	case len(s.OneOf) > 0 && len(s.AnyOf) > 0:
		return "it has both oneOf and anyOf"
	}
	for i, b := range nonNullBranches(slices.Concat(s.OneOf, s.AnyOf)) {
		if b != nil && b.Value != nil && freeForm(b.Value) {
			return fmt.Sprintf("branch %d has no shape of its own (no type but object, no properties, items, enum or union), which the decoder keeps as raw JSON", i+1)
		}
	}
	return ""
}

// freeForm reports whether s has no shape a generated type holds: no
// type, or only "object", and no properties, items, enum, union, map or
// closed object.
func freeForm(s *openapi3.Schema) bool {
	untyped := s.Type == nil || len(*s.Type) == 0 || s.Type.Is(openapi3.TypeObject)
	closed := s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
	return untyped && len(s.Properties) == 0 && s.Items == nil && len(s.Enum) == 0 && !closed &&
		len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0 && s.AdditionalProperties.Schema == nil && s.Extensions["x-go-type"] == nil
}

// nonNullBranches drops the branches that only allow null.
func nonNullBranches(refs openapi3.SchemaRefs) openapi3.SchemaRefs {
	var out openapi3.SchemaRefs
	for _, r := range refs {
		if !(r != nil && r.Value != nil && r.Value.Type != nil && r.Value.Type.Is(openapi3.TypeNull)) {
			out = append(out, r)
		}
	}
	return out
}
