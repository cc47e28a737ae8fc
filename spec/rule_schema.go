package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/runtime/jsonpointer"
)

// This file holds what the rules need to read a request schema: JSON
// pointers and a walk through properties, array items and allOf, oneOf and
// anyOf, with $refs already resolved by the loader.
//
// As in runtime/fingerprint, array elements are addressed with a decimal
// index (one element) or, outside fingerprint.include, with "*" (every
// element); both descend into the array's items schema. A "*" on an object
// stands for every member, which the schema cannot confirm, so the walk
// stops there without a finding.

// pointer is a parsed JSON pointer (RFC 6901): its reference tokens,
// unescaped. The empty pointer addresses the whole body.
type pointer []string

// parsePointer parses a JSON pointer with runtime/jsonpointer, the one
// parser spec, generator and runtime share.
func parsePointer(s string) (pointer, error) {
	tokens, err := jsonpointer.Parse(s)
	return pointer(tokens), err
}

// String formats the pointer with ~0 and ~1 escapes.
func (p pointer) String() string {
	return jsonpointer.Join(p...)
}

// covers reports whether p is q or an ancestor of q, or may be: a "*" on
// either side matches any token, and two array indexes match each other.
func (p pointer) covers(q pointer) bool {
	if len(p) > len(q) {
		return false
	}
	for i, tok := range p {
		if tok != q[i] && tok != "*" && q[i] != "*" && !(isElementToken(tok) && isElementToken(q[i])) {
			return false
		}
	}
	return true
}

// isElementToken reports whether tok addresses array elements: "*" or a
// decimal index.
func isElementToken(tok string) bool {
	if tok == "*" {
		return true
	}
	_, err := strconv.ParseUint(tok, 10, 0)
	return err == nil && (tok == "0" || tok[0] != '0')
}

// requestSchema returns the schema of the operation's request body: the
// one that is read (see PickMedia) when it has a schema, else the first
// JSON-like media type, else the first media type with a schema, in name
// order. It returns nil when the operation has no request body schema.
func requestSchema(op *Operation) *openapi3.Schema {
	if op.Op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Value == nil {
		return nil
	}
	if _, m := requestMedia(op); m != nil && m.Schema != nil && m.Schema.Value != nil {
		return m.Schema.Value
	}
	content := op.Op.RequestBody.Value.Content
	names := make([]string, 0, len(content))
	for name, mt := range content {
		if mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	pick := names[0]
	if slices.Contains(names, "application/json") {
		pick = "application/json"
	} else if i := slices.IndexFunc(names, func(n string) bool { return strings.Contains(n, "json") }); i >= 0 {
		pick = names[i]
	}
	return content[pick].Schema.Value
}

// lookupStatus says what a schema knows about a place in the body.
type lookupStatus int

const (
	// lookupFound: the schema declares the place.
	lookupFound lookupStatus = iota
	// lookupMissing: the schema has no such place.
	lookupMissing
	// lookupOpen: the schema does not constrain the place (a free-form
	// object or additionalProperties: true), so nothing can be said.
	lookupOpen
)

// resolved is the outcome of following a pointer through a schema.
type resolved struct {
	status lookupStatus
	// schema is the schema at the pointer when status is lookupFound.
	schema *openapi3.Schema
	// reason says why the pointer is missing, naming the first token the
	// schema does not have.
	reason string
	// optional is the shortest prefix of the pointer whose last property
	// its parent object does not require, or nil when every property on
	// the way is required. A step into an array element counts as
	// optional, since an array may be empty.
	optional pointer
}

// resolve follows p through root.
func resolve(root *openapi3.Schema, p pointer) resolved {
	cur := root
	var optional pointer
	for i, tok := range p {
		if cur == nil {
			return resolved{status: lookupOpen}
		}
		if isArray(cur) && isElementToken(tok) {
			if optional == nil {
				optional = p[:i+1]
			}
			cur = itemsOf(cur, map[*openapi3.Schema]bool{})
			continue
		}
		if tok == "*" {
			if typesOf(cur).permits("object") {
				return resolved{status: lookupOpen}
			}
			return resolved{status: lookupMissing, reason: fmt.Sprintf("%s is %s, which has no members for * to match", orBody(p[:i]), strings.Join(typesOf(cur), " or "))}
		}
		prop, required, status := property(cur, tok)
		switch status {
		case lookupOpen:
			return resolved{status: lookupOpen}
		case lookupMissing:
			at := orBody(p[:i])
			reason := fmt.Sprintf("%s has no property %q", at, tok)
			if isArray(cur) {
				reason = fmt.Sprintf("%s is an array: address its elements with %s", at, append(slices.Clone(p[:i]), "*").String())
			}
			return resolved{status: lookupMissing, reason: reason}
		}
		if !required && optional == nil {
			optional = p[:i+1]
		}
		cur = prop
	}
	return resolved{status: lookupFound, schema: cur, optional: optional}
}

// orBody names a pointer in messages; the empty pointer is the request
// body.
func orBody(p pointer) string {
	if len(p) == 0 {
		return "the request body"
	}
	return p.String()
}

// property finds the named property of an object schema, merging allOf,
// oneOf and anyOf members. It reports whether some object on the way
// requires it (allOf members count, alternatives do not).
func property(s *openapi3.Schema, name string) (*openapi3.Schema, bool, lookupStatus) {
	found, required := findProperty(s, name, map[*openapi3.Schema]bool{})
	if found != nil {
		return found, required, lookupFound
	}
	if extra, open := additional(s, map[*openapi3.Schema]bool{}); extra != nil {
		return extra, false, lookupFound
	} else if open {
		return nil, false, lookupOpen
	}
	if !hasProperties(s, map[*openapi3.Schema]bool{}) && typesOf(s).permits("object") {
		return nil, false, lookupOpen
	}
	return nil, false, lookupMissing
}

// findProperty searches s and its composition members for the property.
func findProperty(s *openapi3.Schema, name string, seen map[*openapi3.Schema]bool) (*openapi3.Schema, bool) {
	if s == nil || seen[s] {
		return nil, false
	}
	seen[s] = true
	var found *openapi3.Schema
	if ref := s.Properties[name]; ref != nil && ref.Value != nil {
		found = ref.Value
	}
	required := slices.Contains(s.Required, name)
	for _, m := range s.AllOf {
		if m == nil {
			continue
		}
		f, req := findProperty(m.Value, name, seen)
		if found == nil {
			found = f
		}
		required = required || req
	}
	for _, m := range slices.Concat(s.OneOf, s.AnyOf) {
		if m == nil || found != nil {
			continue
		}
		found, _ = findProperty(m.Value, name, seen)
	}
	return found, required
}

// additional returns the additionalProperties schema of s or of one of its
// composition members, or reports that one of them allows any extra
// property.
func additional(s *openapi3.Schema, seen map[*openapi3.Schema]bool) (*openapi3.Schema, bool) {
	if s == nil || seen[s] {
		return nil, false
	}
	seen[s] = true
	if ap := s.AdditionalProperties; ap.Schema != nil && ap.Schema.Value != nil {
		return ap.Schema.Value, false
	} else if ap.Has != nil && *ap.Has {
		return nil, true
	}
	open := false
	for _, m := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if m == nil {
			continue
		}
		extra, o := additional(m.Value, seen)
		if extra != nil {
			return extra, false
		}
		open = open || o
	}
	return nil, open
}

// hasProperties reports whether s or a composition member declares any
// property.
func hasProperties(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	if len(s.Properties) > 0 {
		return true
	}
	for _, m := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if m != nil && hasProperties(m.Value, seen) {
			return true
		}
	}
	return false
}

// typeSet is the set of JSON types a schema and its composition members
// declare; empty means the schema declares none.
type typeSet []string

// permits reports whether the set allows typ: it lists it, or it is empty.
func (t typeSet) permits(typ string) bool {
	return len(t) == 0 || slices.Contains(t, typ)
}

// typesOf collects the types s and its composition members declare.
func typesOf(s *openapi3.Schema) typeSet {
	var out typeSet
	collectTypes(s, map[*openapi3.Schema]bool{}, &out)
	slices.Sort(out)
	return slices.Compact(out)
}

func collectTypes(s *openapi3.Schema, seen map[*openapi3.Schema]bool, out *typeSet) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	for _, t := range s.Type.Slice() {
		if t != openapi3.TypeNull {
			*out = append(*out, t)
		}
	}
	for _, m := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if m != nil {
			collectTypes(m.Value, seen, out)
		}
	}
}

// isArray reports whether s is an array schema: it declares type array,
// or declares no type and has items.
func isArray(s *openapi3.Schema) bool {
	types := typesOf(s)
	if len(types) == 0 {
		return itemsOf(s, map[*openapi3.Schema]bool{}) != nil
	}
	return slices.Contains(types, openapi3.TypeArray)
}

// itemsOf returns the items schema of s or of a composition member.
func itemsOf(s *openapi3.Schema, seen map[*openapi3.Schema]bool) *openapi3.Schema {
	if s == nil || seen[s] {
		return nil
	}
	seen[s] = true
	if s.Items != nil && s.Items.Value != nil {
		return s.Items.Value
	}
	for _, m := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if m == nil {
			continue
		}
		if items := itemsOf(m.Value, seen); items != nil {
			return items
		}
	}
	return nil
}

// maxWalkDepth and maxWalkFields bound walkFields on deeply nested,
// recursive or very large schemas.
const (
	maxWalkDepth  = 12
	maxWalkFields = 5000
)

// walkFields calls visit for every property below s, depth first and in
// name order, with its pointer from the body root; array elements appear as
// "*". A schema that contains itself is walked once per path, and the walk
// stops after maxWalkFields fields.
func walkFields(s *openapi3.Schema, visit func(p pointer, name string)) {
	w := &walker{onPath: map[*openapi3.Schema]bool{}, visit: visit, budget: maxWalkFields}
	w.walk(s, pointer{})
}

// walker is the state of one walkFields.
type walker struct {
	onPath map[*openapi3.Schema]bool
	visit  func(pointer, string)
	budget int
}

func (w *walker) walk(s *openapi3.Schema, at pointer) {
	if s == nil || w.onPath[s] || len(at) > maxWalkDepth {
		return
	}
	w.onPath[s] = true
	defer delete(w.onPath, s)
	if isArray(s) {
		w.walk(itemsOf(s, map[*openapi3.Schema]bool{}), append(slices.Clone(at), "*"))
		return
	}
	props := map[string]*openapi3.Schema{}
	collectProperties(s, map[*openapi3.Schema]bool{}, props)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if w.budget == 0 {
			return
		}
		w.budget--
		p := append(slices.Clone(at), name)
		w.visit(p, name)
		w.walk(props[name], p)
	}
}

// collectProperties gathers the properties of s and its composition
// members; the first declaration of a name wins.
func collectProperties(s *openapi3.Schema, seen map[*openapi3.Schema]bool, out map[string]*openapi3.Schema) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	for name, ref := range s.Properties {
		if _, ok := out[name]; !ok && ref != nil && ref.Value != nil {
			out[name] = ref.Value
		}
	}
	for _, m := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if m != nil {
			collectProperties(m.Value, seen, out)
		}
	}
}
