package generator

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/spec"
)

// The media types a request body may have; the first one an operation
// declares in this order is planned.
const (
	MediaJSON = "application/json"
	MediaForm = "application/x-www-form-urlencoded"
)

// TypePlan is the Go shape of the request and response bodies of a set of
// operations, decided once: every declared type with its final name, and
// for each operation the type of its bodies. Emitters read it and decide
// nothing.
type TypePlan struct {
	// Decls holds every type to declare, sorted by Go name. A component
	// schema used by several operations is declared once.
	Decls []*TypeDecl
	// Operations holds the operations' body types, sorted by path and then
	// method.
	Operations []*OperationTypes
	// Renames lists every collision the plan resolved by numbering, for
	// types and constants (package scope) and then for struct fields, so a
	// caller can report them.
	Renames []Rename
	// Names is the package namespace holding every name in Decls and their
	// enum constants; a caller that declares more
	// package-level symbols claims them here.
	Names *Namespace
}

// OperationTypes is what one operation's bodies are in Go.
type OperationTypes struct {
	Op *spec.Operation
	// Name is the Go name of the operation, from its operationId (or from
	// METHOD and path when it has none). Operation names live in a
	// namespace of their own where two operationIds that give one Go name
	// are an error naming both positions: users write these names by hand.
	// The operation's own types start with it; a caller that declares more
	// names from it (CreateOrderHandler) claims them in Names.
	Name string
	// Request is nil when the operation has no body in a planned media
	// type.
	Request *BodyType
	// Response is the lowest 2xx response with a JSON body; nil when there
	// is none.
	Response *BodyType
	// Unsupported is set when the operation has a request body, but in no
	// media type that is generated (Square's multipart/form-data uploads):
	// Request is nil, and a caller generating the operation reports this
	// error rather than a handler that ignores the body. It is not part of
	// PlanTypes' error, since an operation nobody generates may have it.
	Unsupported *spec.Error
}

// BodyType is the Go type of one request or response body.
type BodyType struct {
	// MediaType is MediaJSON (for application/json, any +json type, and
	// either with parameters) or MediaForm.
	MediaType string
	// ContentType is the content key as the spec writes it.
	ContentType string
	// Status is the response status code; 0 for a request body.
	Status int
	// Required is whether the request body is required.
	Required bool
	Type     *GoType
	Pos      spec.Position
}

// TypeKind says what a GoType is.
type TypeKind int

// The kinds of Go types a schema becomes.
const (
	// TypeRaw is json.RawMessage: unions (oneOf, anyOf) and free-form
	// values, whose JSON text is kept as the client sent it.
	TypeRaw TypeKind = iota
	TypeBool
	TypeInt32
	TypeInt64
	TypeFloat64
	// TypeString is also uuid and every other string format but
	// date-time: the text is kept as sent, so it fingerprints as sent.
	TypeString
	// TypeTime is time.Time, for format date-time.
	TypeTime
	// TypeSlice is []Elem.
	TypeSlice
	// TypeMap is map[string]Elem, from additionalProperties.
	TypeMap
	// TypePointer is *Elem: optional and nullable fields and elements.
	TypePointer
	// TypeDeclared is a type of this plan, in Decl.
	TypeDeclared
	// TypeExternal is an existing type bound with x-go-type.
	TypeExternal
)

// GoType is a Go type expression.
type GoType struct {
	Kind TypeKind
	// Elem is the element of TypeSlice, TypeMap and TypePointer.
	Elem *GoType
	// Decl is the declared type of TypeDeclared.
	Decl *TypeDecl
	// External is the bound type of TypeExternal.
	External *ExternalType
	// Format is the schema's format as written (uuid, date-time, int32,
	// …), for information; the kind already reflects it.
	Format string
}

// ExternalType is an existing Go type named by x-go-type, with its import
// path from x-go-type-import or from the x-go-type value itself
// (github.com/google/uuid.UUID). Path is empty for predeclared types.
type ExternalType struct {
	Path string
	Name string
}

// DeclKind says what a TypeDecl declares.
type DeclKind int

// The kinds of declared types.
const (
	// DeclStruct is a struct with Fields.
	DeclStruct DeclKind = iota
	// DeclEnum is a string type with one constant per value.
	DeclEnum
)

// TypeDecl is one declared type.
type TypeDecl struct {
	Name string
	Kind DeclKind
	// Source says where the schema is: "#/components/schemas/Order" for a
	// component, or the owner and the property path for an inline schema.
	Source string
	// Owner is the operation whose body holds an inline schema; nil for
	// components, which operations share.
	Owner *spec.Operation
	// Component is the $ref of a component schema; empty for inline ones.
	Component string
	Pos       spec.Position
	// Fields of a struct in the order of their JSON names (byte order);
	// their Go names are unique within the struct and differ from its
	// methods.
	Fields []*StructField
	// Consts of an enum in the order the schema lists its values; their
	// names are unique in the package.
	Consts []*EnumConst
	// Form is set when a form request body reaches the type; a struct
	// then gets a DecodeForm method (an enum needs none).
	Form bool
}

// StructField is one field of a struct.
type StructField struct {
	Name     string
	JSONName string
	// Type is the field's Go type as declared: a TypePointer for optional
	// fields (except slices, maps and raw JSON, which have their own nil),
	// nullable fields, and fields that would otherwise make a type contain
	// itself.
	Type *GoType
	// Required is whether the schema lists the property as required;
	// optional fields are tagged omitempty.
	Required bool
	// Nullable is whether the schema allows null.
	Nullable bool
	Pos      spec.Position
}

// EnumConst is one constant of an enum type.
type EnumConst struct {
	Name  string
	Value string
}

// TypeOptions tunes PlanTypes.
type TypeOptions struct {
	// StructMethods are the names of methods the caller adds to every
	// generated struct (such as a fingerprint writer); no field gets one of
	// them. DecodeForm is always reserved.
	StructMethods []string
	// Reserved are package-level names the caller declares itself; no
	// planned type or constant gets one of them.
	Reserved []string
}

// formMethod is the method every struct reached from a form body gets.
const formMethod = "DecodeForm"

// PlanTypes plans the Go types of the request and response bodies of ops,
// which belong to doc. The result depends only on the operations and their
// schemas, not on the order of ops. Errors (an operation name taken twice,
// an x-go-type that is not a Go type name) are *spec.Error values with
// positions, all of them in one spec.ErrorList.
func PlanTypes(doc *spec.Document, ops []*spec.Operation, opts TypeOptions) (*TypePlan, error) {
	p := &typePlanner{
		file:     doc.Path,
		opts:     opts,
		byRef:    map[string]*GoType{},
		building: map[string]bool{},
		open:     map[*TypeDecl]bool{},
		opNames:  NewNamespace(),
		plan:     &TypePlan{Names: NewNamespace()},
	}
	p.plan.Names.Reserve("the caller", opts.Reserved...)
	sorted := slices.Clone(ops)
	slices.SortStableFunc(sorted, func(a, b *spec.Operation) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method), cmp.Compare(a.ID, b.ID))
	})
	for _, op := range sorted {
		p.operation(op)
	}
	p.name()
	p.markForm()
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *spec.Error) int {
			if a.Pos.Before(b.Pos) {
				return -1
			}
			if b.Pos.Before(a.Pos) {
				return 1
			}
			return strings.Compare(a.Msg, b.Msg)
		})
		return nil, p.errs
	}
	return p.plan, nil
}

// typePlanner holds the state of one PlanTypes call.
type typePlanner struct {
	file string
	opts TypeOptions
	plan *TypePlan
	errs spec.ErrorList
	// byRef maps the $ref of a component schema to its type, so
	// operations share it. The $ref, not the *openapi3.Schema, is the
	// identity: kin-openapi may resolve one $ref to several copies.
	byRef map[string]*GoType
	// building holds the component schemas being planned, to cut cycles.
	building map[string]bool
	// open holds the structs whose fields are being planned: a required
	// field of one of them is a cycle and becomes a pointer.
	open map[*TypeDecl]bool
	// opNames holds the operations' names.
	opNames *Namespace
	// pending holds each declaration with the name it wants, in discovery
	// order; name assigns the final names.
	pending []*pendingDecl
}

// pendingDecl is a declaration waiting for its final name.
type pendingDecl struct {
	decl *TypeDecl
	// parent and want make the wanted name, as in hint.
	parent *pendingDecl
	want   string
	// component is the $ref of a component schema; empty for inline ones.
	component string
	// fields holds the wanted Go name of each field, parallel to Fields.
	fields []string
}

func (p *typePlanner) errorf(pos spec.Position, msg string) {
	p.errs = append(p.errs, &spec.Error{Pos: pos, Msg: msg})
}

// operation plans the bodies of one operation.
func (p *typePlanner) operation(op *spec.Operation) {
	id := op.ID
	if id == "" {
		id = op.Method + " " + op.Path
	}
	where := op.Method + " " + op.Path
	if op.ID != "" {
		where = op.ID + " (" + where + ")"
	}
	name, err := p.opNames.Claim(GoName(id), "operation "+where, op.Pos)
	if err != nil {
		p.errs = append(p.errs, err.(*spec.Error))
	}
	ot := &OperationTypes{Op: op, Name: name}
	p.plan.Operations = append(p.plan.Operations, ot)
	if op.Op == nil {
		return
	}
	if rb := op.Op.RequestBody; rb != nil && rb.Value != nil && len(rb.Value.Content) > 0 {
		key, kind, m := pickMedia(rb.Value.Content, MediaJSON, MediaForm)
		if m == nil {
			keys := slices.Sorted(maps.Keys(rb.Value.Content))
			ot.Unsupported = &spec.Error{Pos: p.pos(rb.Value.Origin, op.Pos), Msg: "request body of " + where + " is " + strings.Join(keys, ", ") + "; only JSON and application/x-www-form-urlencoded bodies are generated"}
		} else {
			ot.Request = &BodyType{
				MediaType:   kind,
				ContentType: key,
				Required:    rb.Value.Required,
				Pos:         p.pos(m.Origin, op.Pos),
				Type:        p.typeOf(m.Schema, hint{name: GoName(id) + "Request", source: "request body of " + where, owner: op}),
			}
			if t := ot.Request.Type; kind == MediaForm && (t.Kind != TypeDeclared || t.Decl.Kind != DeclStruct) {
				p.errorf(ot.Request.Pos, "form request body of "+where+" is not an object with properties; only those decode from a form")
			}
		}
	}
	ot.Response = p.response(op, id, where)
}

// response plans the lowest 2xx response with a JSON body.
func (p *typePlanner) response(op *spec.Operation, id, where string) *BodyType {
	if op.Op.Responses == nil {
		return nil
	}
	codes := op.Op.Responses.Keys()
	slices.Sort(codes)
	for _, code := range codes {
		status, err := strconv.Atoi(code)
		if err != nil || status < 200 || status > 299 {
			continue
		}
		r := op.Op.Responses.Value(code)
		if r == nil || r.Value == nil {
			continue
		}
		key, _, m := pickMedia(r.Value.Content, MediaJSON)
		if m == nil {
			continue
		}
		return &BodyType{
			MediaType:   MediaJSON,
			ContentType: key,
			Status:      status,
			Pos:         p.pos(m.Origin, op.Pos),
			Type:        p.typeOf(m.Schema, hint{name: GoName(id) + "Response", source: code + " response body of " + where, owner: op}),
		}
	}
	return nil
}

// pickMedia returns the content entry of the first of kinds the content
// has: the entry named exactly like the kind, else the first in sorted
// order whose media type is of that kind (see mediaKind).
func pickMedia(content openapi3.Content, kinds ...string) (key, kind string, m *openapi3.MediaType) {
	keys := slices.Sorted(maps.Keys(content))
	for _, kind := range kinds {
		if m := content[kind]; m != nil {
			return kind, kind, m
		}
		for _, key := range keys {
			if mediaKind(key) == kind {
				return key, kind, content[key]
			}
		}
	}
	return "", "", nil
}

// mediaKind is MediaJSON for application/json and any structured +json
// type, MediaForm for form bodies, parameters and case ignored; "" for
// everything else.
func mediaKind(key string) string {
	base, _, _ := strings.Cut(key, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	switch {
	case base == MediaJSON, strings.HasPrefix(base, "application/") && strings.HasSuffix(base, "+json"):
		return MediaJSON
	case base == MediaForm:
		return MediaForm
	}
	return ""
}

// hint is what an inline schema is named after.
type hint struct {
	// parent is the declaration the schema is inside; nil for a body or a
	// component. The schema's type wants the parent's final name followed
	// by name, so CreateOrderRequest renamed to CreateOrderRequest2 has a
	// CreateOrderRequest2Delivery.
	parent *pendingDecl
	// name is the Go name the schema's type wants, after the parent's.
	name string
	// source describes the schema for doc comments.
	source string
	owner  *spec.Operation
	// component is the $ref of a component schema being planned; children
	// of it are inline and have none.
	component string
}

// child is the hint of a schema inside the one h names that has no
// declaration of its own in between (an array's items, a map's values).
func (h hint) child(name, what string) hint {
	return hint{parent: h.parent, name: h.name + name, source: what + " of the " + h.source, owner: h.owner}
}

// property is the hint of a property of the struct pd declares.
func (h hint) property(pd *pendingDecl, name string) hint {
	return hint{parent: pd, name: GoName(name), source: "property " + name + " of the " + h.source, owner: h.owner}
}

// pos returns the position an origin records, or fallback.
func (p *typePlanner) pos(o *openapi3.Origin, fallback spec.Position) spec.Position {
	if o == nil || o.Key == nil {
		if fallback.File == "" {
			fallback.File = p.file
		}
		return fallback
	}
	file := o.Key.File
	if file == "" {
		file = p.file
	}
	return spec.Position{File: file, Line: o.Key.Line, Col: o.Key.Column}
}

// zeroPos is the position of a schema whose origin is unknown: the file.
func (p *typePlanner) zeroPos() spec.Position {
	return spec.Position{File: p.file}
}

// propertyPos is where a property is declared: its own origin, else the
// origin of the schema it refers to, else the struct's position.
func (p *typePlanner) propertyPos(ref *openapi3.SchemaRef, fallback spec.Position) spec.Position {
	if ref.Origin != nil && ref.Origin.Key != nil {
		return p.pos(ref.Origin, fallback)
	}
	if ref.Value != nil {
		return p.pos(ref.Value.Origin, fallback)
	}
	return fallback
}

// componentPrefix starts the $ref of a schema under components.
const componentPrefix = "#/components/schemas/"
