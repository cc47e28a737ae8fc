package ir

// The kinds of bodies that are generated (see BodyType.MediaType); a
// request body that offers both is planned as JSON.
const (
	MediaJSON      = "application/json"
	MediaForm      = "application/x-www-form-urlencoded"
	MediaMultipart = "multipart/form-data"
)

// BodyType is the Go type of one request or response body.
type BodyType struct {
	// MediaType is MediaJSON (for application/json, any +json type, and
	// either with parameters), MediaForm or MediaMultipart.
	MediaType string
	// ContentType is the content key as the spec writes it.
	ContentType string
	// Accept lists the content keys of a request body that decode like
	// ContentType (every JSON one, or every form one), sorted: the media
	// types the operation takes; others answer 415.
	Accept []string
	// Status is the response status code; 0 for a request body.
	Status int
	// Required is whether the request body is required.
	Required bool
	Type     *GoType
}

// TypeKind says what a GoType is.
type TypeKind int

// The kinds of Go types a schema becomes.
const (
	// TypeRaw is json.RawMessage: unions (oneOf, anyOf) and free-form
	// values, whose JSON text is kept as the client sent it. A union a
	// JSON request body reaches is checked against its branches (Union).
	TypeRaw TypeKind = iota
	TypeBool
	TypeInt32
	TypeInt64
	TypeFloat64
	// TypeString is also uuid, date-time and every other string format
	// of a schema: the text is kept as sent, so it fingerprints as sent.
	TypeString
	// TypeTime is time.Time, for a date-time parameter or response
	// header.
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
	// TypeNullable is idem.Nullable[Elem]: an optional field whose schema
	// allows null, so that null and absent stay apart.
	TypeNullable
	// TypeFile is form.File: a top-level property of type string and
	// format binary of a multipart/form-data body, read from a file part.
	// Checks.MaxLength, when set, bounds its size in bytes.
	TypeFile
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
	// Checks are the schema's validation keywords; nil for none.
	Checks *Checks
	// Union is what a TypeRaw value is checked against; nil for a
	// free-form value or a union the decoder keeps unchecked.
	Union *Union
}

// Union is a oneOf or anyOf whose branches the generated decoder checks a
// value against.
type Union struct {
	// Exclusive is oneOf: exactly one branch must match; anyOf wants at
	// least one.
	Exclusive bool
	// Branches are the types of the schema's branches, in its order,
	// without a null branch (a null value is the field's nullability).
	Branches []*GoType
	// Discriminator is the member whose value names the branch; empty
	// when the union has none the decoder can use. Mapping then pairs
	// each value with its branch.
	Discriminator string
	Mapping       []UnionCase
}

// UnionCase is one value of a union's discriminator and the index of the
// branch it selects.
type UnionCase struct {
	Value  string
	Branch int
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
	// the request body of createOrder (POST /orders)"). It is safe to put
	// in a comment: the planner has removed line breaks and control
	// characters.
	Source string
	// Component is the $ref of a component schema; empty for inline ones.
	Component string
	// Fields of a struct in the order the schema declares its properties
	// (an allOf's parts first, in order, then the schema's own); their Go
	// names are unique within the struct and differ from its methods.
	Fields []*StructField
	// Canonical holds Fields in the order RFC 8785 sorts their JSON
	// names: the order a fingerprint writes them in.
	Canonical []*StructField
	// Consts of an enum in the order the schema lists its values; their
	// names are unique in the package.
	Consts []*EnumConst
	// Form is set when a form request body (URL-encoded or multipart)
	// reaches the type; a struct then gets a DecodeForm method (an enum
	// needs none).
	Form bool
	// Walker is the name of the shared fingerprint walker of a struct a
	// fingerprint reaches; empty when no fingerprint does.
	Walker string
	// JSON is set when a JSON request body reaches the type; it then gets
	// a JSONMethod that decodes and checks it.
	JSON bool
	// Strict refuses members a struct has no field for
	// (additionalProperties: false); otherwise they are ignored.
	Strict bool
	// Checks are the object's own keywords (minProperties,
	// maxProperties); nil for none.
	Checks *Checks
	// OneOf words the values of an enum for its violation: "one of a, b".
	OneOf string
	// Values names the package-level table of an enum's values that its
	// JSONMethod hands to the runtime; empty for an enum without values.
	Values string
	// Members names the package-level table of a struct's JSON member
	// names, shortest first and then in byte order, that its JSONMethod
	// looks each member up in (jsondecode.Decoder.Field); empty for a
	// struct without fields.
	Members string
	// MemberOrder holds the indexes of Fields in that order.
	MemberOrder []int
}

// StructField is one field of a struct.
type StructField struct {
	Name     string
	JSONName string
	// Type is the field's Go type as declared: a TypeNullable for
	// optional fields that allow null (except raw JSON, which keeps its
	// null), a TypePointer for other optional fields (except slices, maps
	// and raw JSON, which have their own nil), required nullable fields,
	// and fields that would otherwise make a type contain itself.
	Type *GoType
	// Required is whether the schema lists the property as required;
	// optional fields are tagged omitempty.
	Required bool
	// Nullable is whether the schema allows null.
	Nullable bool
}

// EnumConst is one constant of an enum type.
type EnumConst struct {
	Name  string
	Value string
}

// FormMethod is the method every struct reached from a form body gets.
const FormMethod = "DecodeForm"

// JSONMethod is the unexported method every type a JSON request body
// reaches gets: it decodes the type from a runtime/jsondecode Decoder and
// checks its schema. Being unexported, it cannot collide with a field.
const JSONMethod = "decodeJSON"

// FormCheckMethod is the unexported method every struct reached from a
// form body gets besides its FormMethod: it checks the decoded value
// against its schema, reporting every violation to a runtime/jsondecode
// Decoder at the JSON pointer the same body sent as JSON would have.
const FormCheckMethod = "checkForm"

// FormLike reports whether a request body of media type m is read as a
// form: URL-encoded, or multipart with file parts.
func FormLike(m string) bool { return m == MediaForm || m == MediaMultipart }
