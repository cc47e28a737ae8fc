package ir

import "time"

// Program is everything one generated package holds, decided: the
// emitters print it and decide nothing.
type Program struct {
	// Package is the Go package name.
	Package string
	// GeneratorVersion is the idemgen version recorded in the package.
	GeneratorVersion string
	// GeneratedCodeVersion is the version of the generated code's contract
	// with the runtime, checked at compile time.
	GeneratedCodeVersion int
	// SecretFields names the JSON fields the document's schemas mark
	// writeOnly or format: password (spec.Document.SecretFields), for
	// support's views to hide.
	SecretFields []string
	// Types holds every type to declare, sorted by Go name.
	Types []*TypeDecl
	// Patterns holds the regular expressions the decoders check, in the
	// order of their variables.
	Patterns []*Pattern
	// Operations holds the generated operations, sorted by path and then
	// method.
	Operations []*Operation
	// Statuses holds the generated status routes, sorted by path.
	Statuses []*StatusRoute
	// Webhooks holds the generated webhook receivers, sorted by the
	// webhook's name and then method.
	Webhooks []*Webhook
	// Unimplemented is the type whose methods answer every operation
	// with 501 Not Implemented, for a service to embed.
	Unimplemented string
	// Providers holds one typed provider per effect name, sorted by name;
	// empty when no operation has effects.
	Providers []*Provider
	// ProvidersType is the struct with one field per provider, and
	// ProvidersFunc the function that turns it into the worker's
	// registrations; both empty without providers.
	ProvidersType string
	ProvidersFunc string
	// Files lists the Go files to emit, sorted by path.
	Files []File
}

// FileKind says which part of a Program a Go file holds.
type FileKind int

// The Go files of a generated package.
const (
	// FileVersion declares the generator version and the compile-time
	// check against the runtime.
	FileVersion FileKind = iota
	// FileTypes declares the body types and the tables of member names
	// and enum values their decoders use.
	FileTypes
	// FileOperations declares the contracts, operation handles, typed
	// requests and responses, decoders, fingerprints, the Handlers
	// interface, UnimplementedHandlers and the routes.
	FileOperations
	// FileContractTests declares the contract tests.
	FileContractTests
	// FileEffects declares the typed effect providers, their calls and
	// the adapter to the worker's registrations.
	FileEffects
	// FileDecoders declares the body types' decoders (JSON and form) and
	// the patterns they check.
	FileDecoders
)

// File is one Go file to emit: a slash-separated path relative to the
// configuration's directory, and what it holds.
type File struct {
	Path string
	Kind FileKind
}

// Operation is one generated operation.
type Operation struct {
	// Name is the operation's Go name: its business method in Handlers
	// and its field of the contract fixture.
	Name string
	// Doc names the operation in comments: operationId (METHOD /path), or
	// METHOD /path without an operationId. Safe to put in a comment.
	Doc string
	// Contract is the run-time contract the generated code declares: the
	// one place where spec values became values the runtime reads.
	Contract Contract
	// Request is nil when the operation has no body.
	Request *BodyType
	// Responses are the documented answers, one generated type each:
	// exact statuses in order, then ranges (4XX), then default.
	Responses []*Response
	// Params are the parameters of the typed request: path parameters
	// (fields of RequestType) first, then query, header and cookie
	// parameters (fields of ParamsType), each group sorted by name. The idempotency
	// key's header is not among them: the operation handle carries the key.
	Params []Param
	// Route is how the operation mounts on a router.
	Route Route

	// The names of the operation's generated symbols.
	HandleType string // the exported operation handle type
	// RequestType is the typed request the business method receives: the
	// path parameters, Params and Body.
	RequestType string
	// ParamsType is the struct of the query, header and cookie
	// parameters; empty when the operation has none.
	ParamsType string
	// DecodeFunc decodes the typed request from the raw one, parameters
	// and body checked against their schemas into one list of
	// violations, before anything is claimed.
	DecodeFunc string
	// ResponseType is the interface every response type of the operation
	// implements, through the unexported method ResponseMethod (which
	// describes the answer to the runtime), so that only the documented
	// answers can be returned.
	ResponseType   string
	ResponseMethod string
	ContractVar    string
	// FingerprintFunc computes the fingerprint of a typed request.
	FingerprintFunc string
	TypedFunc       string
	// NaturalKeyFunc is empty when the contract declares no natural key.
	NaturalKeyFunc string
	// CurrentMethod is the method of Handlers that answers a retry of the
	// completed operation with the current representation of what it
	// created (replay: current); empty under replay: stored.
	CurrentMethod string
	// MountVar mounts the operation at Route.MuxPattern, behind
	// PathValuesFunc when there is one; Routes and the contract tests both
	// mount through it.
	MountVar string
	// PathValuesFunc is empty when the router's wildcards are the path
	// parameters themselves (Route.Segments is empty).
	PathValuesFunc string

	Effects []Effect
	// Phased holds a phased operation's steps; nil for an atomic one,
	// whose one business method is Name.
	Phased *Phased
	// Fingerprint is what the typed fingerprint covers.
	Fingerprint Fingerprint
	// NaturalKey holds the natural-key pointers in contract order.
	NaturalKey []Pointer

	// Tests are the names and choices of the operation's contract tests.
	Tests Tests
}

// Route is how an operation mounts on a router.
type Route struct {
	// MuxPattern is the ServeMux pattern: METHOD and the path with one
	// {wildcard} per templated segment, named by the generator so that
	// net/http's ServeMux and chi both accept it, with {$} after a
	// trailing slash so that it matches that path only. The runtime's
	// routes take their method and path from it.
	MuxPattern string
	// Segments lists the templated segments whose values the generated
	// code must take apart (a wildcard named differently from the
	// parameter, or text around a parameter); empty when every parameter
	// is a whole segment under its own name.
	Segments []Segment
}

// Segment is one templated path segment: its wildcard matches the whole
// segment, which is Literals[0] Params[0] Literals[1] … Params[n-1]
// Literals[n].
type Segment struct {
	Wildcard string
	Params   []string
	Literals []string
}

// The places a parameter is in (Param.In).
const (
	InPath   = "path"
	InQuery  = "query"
	InHeader = "header"
	InCookie = "cookie"
)

// Param is a parameter of an operation as a field of its typed request.
type Param struct {
	// Name is the parameter's name as the spec writes it.
	Name string
	// In is InPath, InQuery, InHeader or InCookie.
	In    string
	Field string
	// Type is TypeString, TypeInt32, TypeInt64, TypeFloat64, TypeBool or
	// TypeTime, a TypeSlice of one of them (a list, comma-separated or a
	// repeated query parameter), or a TypePointer to one for an optional
	// parameter. A parameter whose schema is none of these is its raw
	// TypeString.
	Type     *GoType
	Required bool
	// Checked is the parameter as the request's decoder checks it
	// against its schema, before the body (JSON or form) and into the
	// same list of violations: a TypeString, TypeInt32, TypeInt64,
	// TypeFloat64 or TypeBool with the schema's Checks (an enum is
	// TypeString with Checks.Strings). Nil when it is not checked: a
	// parameter of another shape, or a cookie.
	Checked *GoType
	// FromCheck is set when the value the check reads is the field's
	// (Checked has the kind of Type, or of its element): the field is set
	// from it, and the parameter decoded once. Otherwise (a date-time, a
	// list, a cookie) the runtime decodes it after the checks.
	FromCheck bool
}

// Response is one documented answer of an operation and its Go type.
type Response struct {
	// Code is the status as the spec writes it: 201, 4XX or default.
	Code string
	// Status is the status of an exact code; 0 for a range or default,
	// whose type has a Status field the service sets.
	Status int
	// Class is the class of a range (4 for 4XX); 0 otherwise.
	Class int
	// Name is the response type.
	Name string
	// Description is the response's description, safe to put in a comment.
	Description string
	// Body is the JSON body; nil when the response has none or RawBody is
	// set.
	Body *BodyType
	// RawBody is the media type of a body that is not JSON, sent as the
	// response's Content-Type unless the service sets its own; the body
	// is bytes.
	RawBody string
	// Headers are the documented response headers, sorted by name.
	Headers []Header
	// HeadersType is the struct of the headers; empty without any.
	HeadersType string
}

// Header is a documented response header as a field of its response's
// headers struct.
type Header struct {
	// Name is the header's name as the spec writes it.
	Name  string
	Field string
	// Type is as Param.Type: an optional header is a pointer (nil is not
	// sent), a required one its value.
	Type     *GoType
	Required bool
}

// The names every response type and typed request uses for its parts.
const (
	FieldBody        = "Body"
	FieldHeaders     = "Headers"
	FieldStatus      = "Status"
	FieldContentType = "ContentType"
	FieldParams      = "Params"
)

// Effect is one side effect with the name of its enqueuer method.
type Effect struct {
	Name      string
	Method    string
	OnUnknown string
	// Payload is the type the enqueuer takes, encoded as JSON; nil when
	// the effect has no payload schema and the enqueuer takes bytes.
	Payload *GoType
}

// Provider is the typed provider of one effect name: the interface a
// service implements, the call it receives and the unexported adapter
// that makes it a worker registration.
type Provider struct {
	// Effect is the effect's name in the contracts.
	Effect string
	// Interface, CallType, Adapter and Field (of the program's
	// ProvidersType) are the Go names.
	Interface string
	CallType  string
	Adapter   string
	Field     string
	// Payload is the call's payload type, decoded from the stored JSON;
	// nil for bytes as enqueued.
	Payload *GoType
	// Verify is set when an operation declares the effect with
	// on-unknown: verify: the interface has Verify.
	Verify bool
	// Operations name, for comments, the operations that enqueue it.
	Operations []string
}

// Fingerprint is what an operation's typed fingerprint covers: the include
// pointers in the order they are written (the runtime's key order) and the
// exclude and unordered pointers as segments.
type Fingerprint struct {
	// Include is empty when the whole body is significant.
	Include   []Pointer
	Exclude   [][]string
	Unordered [][]string
}

// Pointer is a JSON pointer with its unescaped segments.
type Pointer struct {
	Pointer  string
	Segments []string
}

// Wildcard stands for every element or member in exclude and unordered
// pointers.
const Wildcard = "*"

// Tests are the choices the contract tests of an operation make.
type Tests struct {
	// Contract and Fingerprint are the test function names.
	Contract    string
	Fingerprint string
	// Change is the field the tests change to get a request that
	// fingerprints differently; nil when there is none.
	Change *StructField
	// ChangeFunc names the function that changes it.
	ChangeFunc string
	// NaturalKey is set when the same content is the same entity (a
	// natural key in the body, or a resource named in the path).
	NaturalKey bool
}

// Webhook is a generated webhook receiver: an inbox consumer of messages
// delivered over HTTP, signed as Standard Webhooks sign them.
type Webhook struct {
	// Operation holds what the receiver shares with an operation: its Go
	// Name and Doc, its handle (HandleType, Effects) and its typed
	// request (RequestType, DecodeFunc, Params, Request). Nothing else of
	// it is set.
	Operation *Operation
	// Consumer is the consumer's name in the inbox: the block's consumer,
	// else the webhook's operationId.
	Consumer string
	// Source is the sender: the scope of its message ids.
	Source string
	// KeyHeader is the header of the message id, or KeyPointer the JSON
	// pointer of the body member holding it; KeyMaxLen bounds it.
	KeyHeader  string
	KeyPointer string
	KeyMaxLen  int
	// MaxAttempts is the poison policy, Retention how long a processed
	// message is remembered, WaitTimeout the wait for a concurrent
	// delivery of the same message.
	MaxAttempts int
	Retention   time.Duration
	WaitTimeout time.Duration
	// ContractVar is the variable holding the run-time contract,
	// ReceiverFunc the exported constructor of the receiver.
	ContractVar  string
	ReceiverFunc string
	// Broker says what a broker consumer reads, such as "JetStream
	// subject bank.settlements"; empty for a webhook over HTTP. A broker
	// consumer has no KeyHeader (an empty KeyPointer keys it by the
	// broker's message id), and ReceiverFunc returns its consumer.
	Broker string
}
