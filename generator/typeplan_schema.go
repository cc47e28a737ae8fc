package generator

import (
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/spec"
)

// typeOf plans the Go type of a schema; h names it when it needs a
// declaration of its own.
func (p *typePlanner) typeOf(ref *openapi3.SchemaRef, h hint) *GoType {
	if ref == nil || ref.Value == nil {
		return &GoType{Kind: TypeRaw}
	}
	if _, name, ok := strings.Cut(ref.Ref, componentPrefix); ok {
		return p.component(ref.Ref, name, ref.Value)
	}
	return p.inline(ref.Value, h)
}

// component plans a schema under components/schemas once and shares its
// type with every operation that uses it.
func (p *typePlanner) component(ref, name string, s *openapi3.Schema) *GoType {
	if t, ok := p.byRef[ref]; ok {
		return t
	}
	if p.building[ref] {
		// A schema that contains itself without passing through an
		// object (an array of itself): only raw JSON terminates.
		return &GoType{Kind: TypeRaw}
	}
	p.building[ref] = true
	t := p.inline(s, hint{name: GoName(name), source: "schema " + ref, component: ref})
	delete(p.building, ref)
	p.byRef[ref] = t
	return t
}

// inline plans a schema that is not a component reference.
func (p *typePlanner) inline(s *openapi3.Schema, h hint) *GoType {
	if x, ok := s.Extensions["x-go-type"]; ok {
		return p.external(s, x)
	}
	if len(s.AllOf) > 0 {
		// allOf with one part that has a shape, the others only adding a
		// description or nullable, is that part.
		if parts := shaped(s.AllOf); len(parts) == 1 && len(s.Properties) == 0 {
			return p.typeOf(parts[0], h)
		}
		// Merging is only faithful when every part is an object; a union
		// or a scalar among the parts stays raw JSON rather than lose it.
		if !mergeable(s, map[*openapi3.Schema]bool{}) {
			return &GoType{Kind: TypeRaw}
		}
		return p.structOf(s, h)
	}
	if len(s.OneOf) > 0 || len(s.AnyOf) > 0 {
		branches := nonNull(append(slices.Clone(s.OneOf), s.AnyOf...))
		if len(branches) == 1 && len(s.Properties) == 0 {
			return p.typeOf(branches[0], h)
		}
		return p.unionOf(s, h)
	}
	typ := schemaType(s)
	if typ == "" {
		switch {
		case len(s.Properties) > 0:
			typ = openapi3.TypeObject
		case s.Items != nil:
			typ = openapi3.TypeArray
		case stringEnum(s) != nil:
			typ = openapi3.TypeString
		case s.AdditionalProperties.Schema != nil:
			typ = openapi3.TypeObject
		}
	}
	switch typ {
	case openapi3.TypeString:
		switch {
		case stringEnum(s) != nil:
			return p.enumOf(s, h)
		}
		// A date-time keeps its text, checked as RFC 3339: a time.Time
		// would fold 10:00:00Z, 10:00:00.000Z and 10:00:00+00:00 into one
		// value, which the runtime's fingerprint of the same bytes keeps
		// apart.
		return p.checked(&GoType{Kind: TypeString, Format: s.Format}, s)
	case openapi3.TypeInteger:
		if s.Format == "int32" {
			return p.checked(&GoType{Kind: TypeInt32, Format: s.Format}, s)
		}
		return p.checked(&GoType{Kind: TypeInt64, Format: s.Format}, s)
	case openapi3.TypeNumber:
		return p.checked(&GoType{Kind: TypeFloat64, Format: s.Format}, s)
	case openapi3.TypeBoolean:
		return &GoType{Kind: TypeBool}
	case openapi3.TypeArray:
		return p.checked(&GoType{Kind: TypeSlice, Elem: p.elemType(s.Items, h.child("Item", "item"))}, s)
	case openapi3.TypeObject:
		// A struct cannot hold members beyond its fields: named properties
		// with an additionalProperties schema or patternProperties stay
		// raw JSON rather than drop those members.
		if len(s.Properties) > 0 && (s.AdditionalProperties.Schema != nil || len(s.PatternProperties) > 0) {
			return &GoType{Kind: TypeRaw}
		}
		// additionalProperties: false without properties is an object
		// that must be empty (Stripe's DELETE bodies): an empty struct.
		if len(s.Properties) > 0 || s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
			return p.structOf(s, h)
		}
		if ap := s.AdditionalProperties.Schema; ap != nil {
			return p.checked(&GoType{Kind: TypeMap, Elem: p.elemType(ap, h.child("Value", "value"))}, s)
		}
	}
	return &GoType{Kind: TypeRaw}
}

// elemType plans an array element or map value, a pointer when it may be
// null.
func (p *typePlanner) elemType(ref *openapi3.SchemaRef, h hint) *GoType {
	t := p.typeOf(ref, h)
	if nullable(ref) && hasNoNil(t) {
		return &GoType{Kind: TypePointer, Elem: t}
	}
	return t
}

// structOf declares a struct with the properties of s and of everything
// its allOf merges in.
func (p *typePlanner) structOf(s *openapi3.Schema, h hint) *GoType {
	decl := &TypeDecl{Kind: DeclStruct, Source: commentText(h.source), Component: h.component}
	structChecks(decl, s)
	declPos := p.declare(decl, s, h)
	t := &GoType{Kind: TypeDeclared, Decl: decl}
	pd := &pendingDecl{decl: decl, parent: h.parent, want: h.name, component: h.component}
	p.pending = append(p.pending, pd)
	if h.component != "" {
		p.byRef[h.component] = t
	}
	props := map[string]*openapi3.SchemaRef{}
	required := map[string]bool{}
	var declared []string
	collectProperties(s, props, required, &declared, map[*openapi3.Schema]bool{})
	// The properties are planned by name, so inline types are discovered,
	// and named, whatever order the schema writes them in; the struct
	// then lists its fields in that order.
	names := slices.Sorted(slices.Values(declared))
	p.open[decl] = true
	for _, name := range names {
		ref := props[name]
		f := &StructField{
			JSONName: name,
			Required: required[name],
			Nullable: nullable(ref),
		}
		fpos := p.propertyPos(ref, declPos)
		p.plan.origins[f] = origin{pos: fpos}
		f.Type = p.fieldType(p.typeOf(ref, h.property(pd, name)), f)
		if !validTagName(name) {
			p.errorf(fpos, "property name "+strconv.Quote(name)+" of "+h.source+" cannot be a JSON struct tag")
		}
		decl.Fields = append(decl.Fields, f)
		pd.fields = append(pd.fields, GoName(name))
	}
	delete(p.open, decl)
	inOrder(decl, pd, declared)
	return t
}

// inOrder puts the fields of a planned struct, and the Go names they want,
// in the order the schema declares the properties.
func inOrder(decl *TypeDecl, pd *pendingDecl, declared []string) {
	at := make(map[string]int, len(declared))
	for i, name := range declared {
		at[name] = i
	}
	fields := make([]*StructField, len(decl.Fields))
	wants := make([]string, len(decl.Fields))
	for i, f := range decl.Fields {
		fields[at[f.JSONName]], wants[at[f.JSONName]] = f, pd.fields[i]
	}
	decl.Fields, pd.fields = fields, wants
}

// declare records where a declaration comes from and returns that
// position.
func (p *typePlanner) declare(d *TypeDecl, s *openapi3.Schema, h hint) spec.Position {
	o := origin{pos: p.pos(s.Origin, p.zeroPos())}
	if h.component == "" {
		o.owner = h.owner
	}
	p.plan.origins[d] = o
	return o.pos
}

// fieldType is t as a field holds it: a Nullable when the field may be
// absent or null (so the two stay apart), behind a pointer when it may be
// absent, is nullable but required, or would make a struct contain itself.
// Slices, maps and raw JSON have their own nil and stay as they are.
func (p *typePlanner) fieldType(t *GoType, f *StructField) *GoType {
	self := t.Kind == TypeDeclared && p.open[t.Decl]
	if !f.Required && f.Nullable && t.Kind != TypeRaw && !self {
		return &GoType{Kind: TypeNullable, Elem: t}
	}
	if !hasNoNil(t) {
		return t
	}
	if !f.Required || f.Nullable || (t.Kind == TypeDeclared && p.open[t.Decl]) {
		return &GoType{Kind: TypePointer, Elem: t}
	}
	return t
}

// pointerNullables keeps Nullable fields only in the declarations a
// request body reaches, where the decoder and the typed fingerprint must
// tell null from absent; elsewhere (types only responses use) such a field
// is a pointer again. Each Nullable[T] is a generic instantiation:
// Stripe's response types alone would need 316 of them (1,432 fields), and
// its package took about 8 s more CPU to compile with them.
func (p *typePlanner) pointerNullables() {
	for _, d := range p.plan.Decls {
		if d.JSON || d.Form {
			continue
		}
		for _, f := range d.Fields {
			if f.Type.Kind == TypeNullable {
				f.Type = f.Type.Elem
				if hasNoNil(f.Type) {
					f.Type = &GoType{Kind: TypePointer, Elem: f.Type}
				}
			}
		}
	}
}

// enumOf declares a string type for a string enum.
func (p *typePlanner) enumOf(s *openapi3.Schema, h hint) *GoType {
	decl := &TypeDecl{Kind: DeclEnum, Source: commentText(h.source), Component: h.component}
	p.declare(decl, s, h)
	seen := map[string]bool{}
	for _, v := range stringEnum(s) {
		if !seen[v] {
			seen[v] = true
			decl.Consts = append(decl.Consts, &EnumConst{Value: v})
		}
	}
	decl.OneOf = enumWording(decl)
	p.pending = append(p.pending, &pendingDecl{decl: decl, parent: h.parent, want: h.name, component: h.component})
	return &GoType{Kind: TypeDeclared, Decl: decl, Format: s.Format}
}

// external binds a schema to an existing type with x-go-type and, when the
// value does not carry it, the import path in x-go-type-import.
func (p *typePlanner) external(s *openapi3.Schema, x any) *GoType {
	pos := p.pos(s.Origin, p.zeroPos())
	value, ok := x.(string)
	if !ok {
		p.errorf(pos, "x-go-type: want a string such as github.com/google/uuid.UUID")
		return &GoType{Kind: TypeRaw}
	}
	ext := &ExternalType{Name: value}
	if i := strings.LastIndexByte(value, '.'); i >= 0 {
		ext.Path, ext.Name = value[:i], value[i+1:]
		if imp, ok := s.Extensions["x-go-type-import"].(map[string]any); ok && !strings.Contains(ext.Path, "/") {
			if path, ok := imp["path"].(string); ok {
				ext.Path = path
			}
		}
	}
	if !token.IsIdentifier(ext.Name) || !token.IsExported(ext.Name) && ext.Path != "" || ext.Path == "" && !predeclared[ext.Name] || !validImportPath(ext.Path) {
		p.errorf(pos, "x-go-type: "+strconv.Quote(value)+" is not a Go type name (want a predeclared type such as string, or importpath.Name such as github.com/google/uuid.UUID)")
		return &GoType{Kind: TypeRaw}
	}
	return &GoType{Kind: TypeExternal, External: ext}
}

// validImportPath reports whether path is empty or a plausible import
// path: non-empty slash-separated elements without spaces or quotes.
func validImportPath(path string) bool {
	if path == "" {
		return true
	}
	for _, elem := range strings.Split(path, "/") {
		if elem == "" || strings.ContainsAny(elem, " \t\"`\\") {
			return false
		}
	}
	return true
}

// collectProperties gathers the properties and required names of s and of
// the schemas its allOf lists, the schema's own properties winning, and
// appends each property's name to declared where it is first declared:
// the allOf parts' properties in their order, then the schema's own, each
// schema's in the order its document writes them.
func collectProperties(s *openapi3.Schema, props map[string]*openapi3.SchemaRef, required map[string]bool, declared *[]string, seen map[*openapi3.Schema]bool) {
	if seen[s] {
		return
	}
	seen[s] = true
	for _, part := range s.AllOf {
		if part != nil && part.Value != nil {
			collectProperties(part.Value, props, required, declared, seen)
		}
	}
	for _, name := range spec.PropertyOrder(s) {
		if _, ok := props[name]; !ok {
			*declared = append(*declared, name)
		}
		props[name] = s.Properties[name]
	}
	for _, name := range s.Required {
		required[name] = true
	}
}

// schemaType returns the one non-null type s declares, or "" when it
// declares none or several.
func schemaType(s *openapi3.Schema) string {
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

// stringEnum returns the values of a string enum, or nil when s has no
// enum or one with values that are not strings. A null value (an enum of
// a nullable schema) makes the schema nullable, not the enum untyped.
func stringEnum(s *openapi3.Schema) []string {
	var out []string
	for _, v := range s.Enum {
		if v == nil {
			continue
		}
		str, ok := v.(string)
		if !ok {
			return nil
		}
		out = append(out, str)
	}
	return out
}

// nullable reports whether a schema allows null: nullable: true (3.0), a
// null type (3.1), or a null branch of oneOf or anyOf.
func nullable(ref *openapi3.SchemaRef) bool {
	if ref == nil || ref.Value == nil {
		return false
	}
	s := ref.Value
	if s.Nullable || s.Type != nil && s.Type.Includes(openapi3.TypeNull) || slices.Contains(s.Enum, nil) {
		return true
	}
	for _, b := range append(slices.Clone(s.OneOf), s.AnyOf...) {
		if isNull(b) {
			return true
		}
	}
	return false
}

// mergeable reports whether s and every shaped part of its allOf are
// plain objects whose properties a struct can hold (no unions, scalars or
// additionalProperties schemas).
func mergeable(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if seen[s] {
		return true
	}
	seen[s] = true
	if t := schemaType(s); t != "" && t != openapi3.TypeObject || len(s.OneOf)+len(s.AnyOf) > 0 || s.Extensions["x-go-type"] != nil ||
		s.AdditionalProperties.Schema != nil || len(s.PatternProperties) > 0 {
		return false
	}
	for _, part := range shaped(s.AllOf) {
		if !mergeable(part.Value, seen) {
			return false
		}
	}
	return true
}

// shaped drops the parts that only annotate (a description, nullable)
// and give no type, properties, items, enum or composition.
func shaped(refs openapi3.SchemaRefs) openapi3.SchemaRefs {
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

// nonNull drops the branches that only allow null.
func nonNull(refs openapi3.SchemaRefs) openapi3.SchemaRefs {
	var out openapi3.SchemaRefs
	for _, r := range refs {
		if !isNull(r) {
			out = append(out, r)
		}
	}
	return out
}

func isNull(r *openapi3.SchemaRef) bool {
	return r != nil && r.Value != nil && r.Value.Type != nil && r.Value.Type.Is(openapi3.TypeNull)
}

// hasNoNil reports whether t needs a pointer to be absent.
func hasNoNil(t *GoType) bool {
	switch t.Kind {
	case TypeSlice, TypeMap, TypeRaw, TypePointer:
		return false
	}
	return true
}

// validTagName reports whether encoding/json accepts name as the name in a
// struct tag (it silently falls back to the Go name otherwise).
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", r):
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r > 0x7f && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		default:
			return false
		}
	}
	return true
}
