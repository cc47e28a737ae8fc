package spec

import (
	"cmp"
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// PropertyOrder returns the names of the properties of s in the order its
// document writes them. kin-openapi keeps properties in a map, which loses
// that order; the loader records where each property's key is (the
// origin of its $ref, or of its inline schema), so the keys of one schema,
// all in one file, sort back into place. A property without a recorded
// position (a schema built in code) comes after the others, by name.
func PropertyOrder(s *openapi3.Schema) []string {
	type entry struct {
		name      string
		line, col int
	}
	entries := make([]entry, 0, len(s.Properties))
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		e := entry{name: name}
		if k := propertyKey(s.Properties[name]); k != nil {
			e.line, e.col = k.Line, k.Column
		}
		entries = append(entries, e)
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		if (a.line == 0) != (b.line == 0) {
			return cmp.Compare(b.line, a.line) // positioned ones first
		}
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
	})
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.name
	}
	return names
}

// propertyKey is where a property's key is: the origin of its $ref, else
// of its inline schema; nil when neither was recorded.
func propertyKey(ref *openapi3.SchemaRef) *openapi3.Location {
	switch {
	case ref == nil:
		return nil
	case ref.Origin != nil && ref.Origin.Key != nil:
		return ref.Origin.Key
	case ref.Value != nil && ref.Value.Origin != nil:
		return ref.Value.Origin.Key
	}
	return nil
}
