package generator

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// The kinds of bodies that are generated (see BodyType.MediaType); a
// request body that offers both is planned as JSON.
const (
	MediaJSON      = ir.MediaJSON
	MediaForm      = ir.MediaForm
	MediaMultipart = ir.MediaMultipart
)

// TypePlan is the Go shape of the request and response bodies of a set of
// operations, decided once: every declared type with its final name, and
// for each operation the type of its bodies. Emitters read it and decide
// nothing.
type TypePlan struct {
	// Decls holds every type to declare, sorted by Go name. A component
	// schema used by several operations is declared once.
	Decls []*TypeDecl
	// Patterns holds the patterns the JSON decoders check, named in the
	// order the planner met them.
	Patterns []*Pattern
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
	// origins holds where each declaration and field comes from, for
	// positioned errors and tests; the IR itself has no positions.
	origins map[any]origin
}

// origin is where a declaration or field of the plan comes from.
type origin struct {
	pos spec.Position
	// owner is the operation whose body holds an inline schema; nil for
	// components and fields.
	owner *spec.Operation
}

// DeclPos returns where a declaration's schema is.
func (p *TypePlan) DeclPos(d *TypeDecl) spec.Position { return p.origins[d].pos }

// FieldPos returns where a field's property is declared.
func (p *TypePlan) FieldPos(f *StructField) spec.Position { return p.origins[f].pos }

// Owner returns the operation whose body holds an inline schema's
// declaration, or nil for a component, which operations share.
func (p *TypePlan) Owner(d *TypeDecl) *spec.Operation { return p.origins[d].owner }

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
	// Responses are the operation's documented responses: exact statuses
	// in order, then ranges (4XX), then default.
	Responses []*ResponseTypes
	// Params are the operation's scalar path, query and header
	// parameters with their checks.
	Params []*ParamCheck
	// Unsupported is set when the operation has a request body, but in no
	// media type that is generated (Square's multipart/form-data uploads):
	// Request is nil, and a caller generating the operation reports this
	// error rather than a handler that ignores the body. It is not part of
	// PlanTypes' error, since an operation nobody generates may have it.
	Unsupported *spec.Error
	// Payloads holds the type of each effect's payload schema, by effect
	// name; an effect without a payload schema has none.
	Payloads map[string]*GoType
	// Outputs holds the type of each phased step's output schema, by step
	// name; a step without an output schema has none.
	Outputs map[string]*GoType
}

// ResponseTypes is one documented response of an operation.
type ResponseTypes struct {
	// Code is the status as the spec writes it: 201, 4XX or default.
	Code string
	// Response is the spec's response object.
	Response *openapi3.Response
	// Body is the planned JSON body; nil when the response has none in a
	// JSON media type.
	Body *BodyType
	// Raw is the content key of a body in no JSON media type (the first in
	// sorted order); "" otherwise.
	Raw string
}

// Success returns the body of the lowest 2xx response with a JSON body;
// nil when there is none.
func (ot *OperationTypes) Success() *BodyType {
	for _, r := range ot.Responses {
		if r.Body != nil && r.Body.Status >= 200 && r.Body.Status < 300 {
			return r.Body
		}
	}
	return nil
}

// The Go shape of bodies is IR: the planner fills it in, the emitters
// print it.
type (
	BodyType     = ir.BodyType
	TypeKind     = ir.TypeKind
	GoType       = ir.GoType
	ExternalType = ir.ExternalType
	DeclKind     = ir.DeclKind
	TypeDecl     = ir.TypeDecl
	StructField  = ir.StructField
	EnumConst    = ir.EnumConst
	Union        = ir.Union
	UnionCase    = ir.UnionCase
)

// The kinds of Go types and declarations, as the IR names them.
const (
	TypeRaw      = ir.TypeRaw
	TypeBool     = ir.TypeBool
	TypeInt32    = ir.TypeInt32
	TypeInt64    = ir.TypeInt64
	TypeFloat64  = ir.TypeFloat64
	TypeString   = ir.TypeString
	TypeTime     = ir.TypeTime
	TypeSlice    = ir.TypeSlice
	TypeMap      = ir.TypeMap
	TypePointer  = ir.TypePointer
	TypeNullable = ir.TypeNullable
	TypeFile     = ir.TypeFile
	TypeDeclared = ir.TypeDeclared
	TypeExternal = ir.TypeExternal
	DeclStruct   = ir.DeclStruct
	DeclEnum     = ir.DeclEnum
)

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
