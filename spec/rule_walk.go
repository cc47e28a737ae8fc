package spec

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// This file holds what the not-generated rules know of generated code:
// which request bodies are generated, and the shape each schema takes in
// the typed request, through which a generated fingerprint and natural key
// walk. The shapes follow the generator's type planning (its typeOf): a
// union, a free-form value or an x-go-type binding is kept as one opaque
// value, which a typed walk can take whole but not select from.

// The media types of request bodies that are generated, as the generator
// names them; a body that offers both is planned as JSON.
const (
	mediaJSON = "application/json"
	mediaForm = "application/x-www-form-urlencoded"
)

// mediaKind is mediaJSON for application/json and any structured +json
// type, mediaForm for form bodies, parameters and case ignored; "" for
// everything else.
func mediaKind(key string) string {
	base, _, _ := strings.Cut(key, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	switch {
	case base == mediaJSON, strings.HasPrefix(base, "application/") && strings.HasSuffix(base, "+json"):
		return mediaJSON
	case base == mediaForm:
		return mediaForm
	}
	return ""
}

// generatedBody returns the request body entry the generator plans: the
// entry named exactly application/json, else the first JSON one in name
// order, else likewise a form one. kind is "" when the operation has a
// request body in none of those, and content lists its media types.
func generatedBody(op *Operation) (kind string, media *openapi3.MediaType, content []string) {
	if op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Value == nil {
		return "", nil, nil
	}
	c := op.Op.RequestBody.Value.Content
	keys := slices.Sorted(maps.Keys(c))
	for _, kind := range []string{mediaJSON, mediaForm} {
		if m := c[kind]; m != nil {
			return kind, m, keys
		}
		for _, key := range keys {
			if mediaKind(key) == kind {
				return kind, c[key], keys
			}
		}
	}
	return "", nil, keys
}

// shape is what a schema becomes in a typed request.
type shape int

const (
	// shapeOpaque is a value kept as the client sent it: a union (oneOf,
	// anyOf with several branches), a free-form value, an allOf that does
	// not merge into one object, an object with both properties and
	// additionalProperties, or a schema that contains itself without an
	// object in between.
	shapeOpaque shape = iota
	// shapeBound is an existing Go type named by x-go-type, just as
	// opaque to the walk.
	shapeBound
	// shapeScalar is a string, number, boolean or string enum.
	shapeScalar
	// shapeArray has elements of one schema.
	shapeArray
	// shapeMap is an object with additionalProperties only.
	shapeMap
	// shapeObject is an object with named properties.
	shapeObject
)

// typed is one schema with its shape.
type typed struct {
	shape shape
	// schema is the schema the shape was decided on, after an allOf of one
	// part or a oneOf of one branch was followed.
	schema *openapi3.Schema
}

// typedWalk follows pointers through the shapes of one request body.
type typedWalk struct {
	// seen maps the component schemas met so far to their shape; one still
	// being decided is opaque, as in the generator, so a schema that
	// contains itself without passing through an object ends there.
	seen map[string]typed
}

// newTypedWalk returns a walk with nothing seen yet.
func newTypedWalk() *typedWalk {
	return &typedWalk{seen: map[string]typed{}}
}

// componentPrefix starts the $ref of a schema under components.
const componentPrefix = "#/components/schemas/"

// typeOf decides the shape of a schema.
func (w *typedWalk) typeOf(ref *openapi3.SchemaRef) typed {
	if ref == nil || ref.Value == nil {
		return typed{shape: shapeOpaque}
	}
	if !strings.Contains(ref.Ref, componentPrefix) {
		return w.inline(ref.Value)
	}
	if t, ok := w.seen[ref.Ref]; ok {
		return t
	}
	w.seen[ref.Ref] = typed{shape: shapeOpaque}
	t := w.inline(ref.Value)
	w.seen[ref.Ref] = t
	return t
}

// inline decides the shape of a schema that is not a component reference.
func (w *typedWalk) inline(s *openapi3.Schema) typed {
	if _, ok := s.Extensions["x-go-type"]; ok {
		return typed{shape: shapeBound, schema: s}
	}
	if len(s.AllOf) > 0 {
		if parts := shapedParts(s.AllOf); len(parts) == 1 && len(s.Properties) == 0 {
			return w.typeOf(parts[0])
		}
		if !mergeable(s, map[*openapi3.Schema]bool{}) {
			return typed{shape: shapeOpaque, schema: s}
		}
		return typed{shape: shapeObject, schema: s}
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		branches := nonNullBranches(slices.Concat(s.OneOf, s.AnyOf))
		if len(branches) == 1 && len(s.Properties) == 0 {
			return w.typeOf(branches[0])
		}
		return typed{shape: shapeOpaque, schema: s}
	}
	typ := singleType(s)
	if typ == "" {
		switch {
		case len(s.Properties) > 0:
			typ = openapi3.TypeObject
		case s.Items != nil:
			typ = openapi3.TypeArray
		case isStringEnum(s):
			typ = openapi3.TypeString
		case s.AdditionalProperties.Schema != nil:
			typ = openapi3.TypeObject
		}
	}
	switch typ {
	case openapi3.TypeString, openapi3.TypeInteger, openapi3.TypeNumber, openapi3.TypeBoolean:
		return typed{shape: shapeScalar, schema: s}
	case openapi3.TypeArray:
		return typed{shape: shapeArray, schema: s}
	case openapi3.TypeObject:
		extra := s.AdditionalProperties.Schema != nil || len(s.PatternProperties) > 0
		switch {
		case len(s.Properties) > 0 && extra:
		case len(s.Properties) > 0, s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has:
			return typed{shape: shapeObject, schema: s}
		case s.AdditionalProperties.Schema != nil:
			return typed{shape: shapeMap, schema: s}
		}
	}
	return typed{shape: shapeOpaque, schema: s}
}

// elem returns the schema of an array's elements or a map's values.
func (t typed) elem() *openapi3.SchemaRef {
	if t.shape == shapeArray {
		return t.schema.Items
	}
	return t.schema.AdditionalProperties.Schema
}

// field returns the property of an object shape, its own properties
// winning over those its allOf parts merge in; nil when it has none.
func (t typed) field(name string) *openapi3.SchemaRef {
	return mergedProperty(t.schema, name, map[*openapi3.Schema]bool{})
}

func mergedProperty(s *openapi3.Schema, name string, seen map[*openapi3.Schema]bool) *openapi3.SchemaRef {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	if ref := s.Properties[name]; ref != nil {
		return ref
	}
	var found *openapi3.SchemaRef
	for _, part := range s.AllOf {
		if part != nil && part.Value != nil {
			if ref := mergedProperty(part.Value, name, seen); ref != nil {
				found = ref
			}
		}
	}
	return found
}

// opaqueWhat names an opaque or bound value in messages.
func (t typed) opaqueWhat() string {
	switch {
	case t.shape == shapeBound:
		return "a value bound to a Go type with x-go-type"
	case t.schema != nil && len(t.schema.OneOf)+len(t.schema.AnyOf) > 0:
		return "a oneOf/anyOf union"
	case t.schema != nil && len(t.schema.AllOf) > 0:
		return "an allOf that does not merge into one object"
	case t.schema != nil && len(t.schema.Properties) > 0:
		return "an object with both properties and additionalProperties"
	}
	return "a free-form value"
}

// selectProblem says why a generated fingerprint or natural key cannot
// select the value at an include or natural-key pointer, or "" when it
// can. A member that an object does not have is no problem here: IDEM001
// and IDEM002 report it.
func (w *typedWalk) selectProblem(body *openapi3.SchemaRef, p pointer) string {
	t := w.typeOf(body)
	for i, tok := range p {
		at := orBody(p[:i])
		switch t.shape {
		case shapeOpaque, shapeBound:
			return at + " is " + t.opaqueWhat() + ", which generated code keeps whole and cannot select from"
		case shapeArray:
			if _, err := strconv.Atoi(tok); err != nil {
				return "segment " + strconv.Quote(tok) + " of " + at + " is not an array index"
			}
			t = w.typeOf(t.elem())
		case shapeMap:
			t = w.typeOf(t.elem())
		case shapeObject:
			f := t.field(tok)
			if f == nil {
				return ""
			}
			t = w.typeOf(f)
		default:
			return ""
		}
	}
	return ""
}

// walkProblem says why a generated fingerprint cannot apply an exclude or
// unordered pointer, or "" when it can.
func (w *typedWalk) walkProblem(body *openapi3.SchemaRef, p pointer, exclude bool) string {
	t := w.typeOf(body)
	for i, tok := range p {
		last := i == len(p)-1
		at := orBody(p[:i])
		switch t.shape {
		case shapeOpaque, shapeBound:
			return at + " is " + t.opaqueWhat() + ", which generated code keeps whole and cannot walk into"
		case shapeArray:
			if tok != "*" {
				return at + " is an array, and generated code addresses its elements only all at once, with *"
			}
			t = w.typeOf(t.elem())
		case shapeMap:
			if tok != "*" && !(exclude && last) {
				return at + " is a map, and generated code addresses a single member only as the last segment of an exclude pointer; elsewhere use * for every member"
			}
			t = w.typeOf(t.elem())
		case shapeObject:
			if tok == "*" {
				if !last {
					return "* over the members of the object " + at + " is supported only as the last segment; name the member instead"
				}
				return ""
			}
			f := t.field(tok)
			if f == nil {
				return ""
			}
			t = w.typeOf(f)
		default:
			return ""
		}
	}
	return ""
}

// mergeable reports whether s and every shaped part of its allOf are
// plain objects whose properties merge into one (no unions, scalars,
// x-go-type or additionalProperties schemas).
func mergeable(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if seen[s] {
		return true
	}
	seen[s] = true
	if t := singleType(s); t != "" && t != openapi3.TypeObject || len(s.OneOf)+len(s.AnyOf) > 0 || s.Extensions["x-go-type"] != nil ||
		s.AdditionalProperties.Schema != nil || len(s.PatternProperties) > 0 {
		return false
	}
	for _, part := range shapedParts(s.AllOf) {
		if !mergeable(part.Value, seen) {
			return false
		}
	}
	return true
}

// shapedParts drops the allOf parts that only annotate (a description,
// nullable) and give no type, properties, items, enum or composition.
func shapedParts(refs openapi3.SchemaRefs) openapi3.SchemaRefs {
	var out openapi3.SchemaRefs
	for _, r := range refs {
		if r == nil || r.Value == nil {
			continue
		}
		s := r.Value
		if r.Ref != "" || s.Type != nil && len(s.Type.Slice()) > 0 || len(s.Properties) > 0 || s.Items != nil || len(s.Enum) > 0 ||
			len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0 || s.AdditionalProperties.Schema != nil || s.Extensions["x-go-type"] != nil {
			out = append(out, r)
		}
	}
	return out
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

// singleType returns the one non-null type s declares, or "" when it
// declares none or several.
func singleType(s *openapi3.Schema) string {
	if s.Type == nil {
		return ""
	}
	var found string
	for _, t := range s.Type.Slice() {
		if t == openapi3.TypeNull {
			continue
		}
		if found != "" {
			return ""
		}
		found = t
	}
	return found
}

// isStringEnum reports whether s has an enum whose values, null aside,
// are all strings.
func isStringEnum(s *openapi3.Schema) bool {
	found := false
	for _, v := range s.Enum {
		if v == nil {
			continue
		}
		if _, ok := v.(string); !ok {
			return false
		}
		found = true
	}
	return found
}
