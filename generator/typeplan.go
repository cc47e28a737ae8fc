package generator

import "github.com/idemgen/idemgen/spec"

// The kinds of bodies that are generated (see BodyType.MediaType); a
// request body that offers both is planned as JSON.
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
	// enum constants; a caller that declares more package-level symbols
	// claims them here.
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
	// Source says where the schema is, as the doc comment words it:
	// "schema #/components/schemas/Order" for a component, or the property
	// path and the owning body for an inline schema ("property delivery of
	// the request body of createOrder (POST /orders)").
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
