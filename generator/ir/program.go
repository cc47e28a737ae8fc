package ir

import "github.com/idemgen/idemgen/runtime/idemimpl"

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
	// Types holds every type to declare, sorted by Go name.
	Types []*TypeDecl
	// Patterns holds the regular expressions the decoders check, in the
	// order of their variables.
	Patterns []*Pattern
	// Operations holds the generated operations, sorted by path and then
	// method.
	Operations []*Operation
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
	// FileTypes declares the body types.
	FileTypes
	// FileOperations declares the contracts, decoders, fingerprints,
	// operation handles, the Handlers interface and the routes.
	FileOperations
	// FileContractTests declares the contract tests.
	FileContractTests
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
	// Contract is the run-time contract, exactly as the generated code
	// declares it: the one place where spec values became runtime values.
	Contract idemimpl.Contract
	// Request is nil when the operation has no body.
	Request *BodyType
	// Response is nil when the success response has no JSON body.
	Response *BodyType
	// SuccessStatus is the status of a successful answer.
	SuccessStatus int
	// Route is how the operation mounts on a router.
	Route Route

	// The names of the operation's generated symbols.
	HandleType      string // the exported operation handle type
	ContractVar     string
	FingerprintFunc string
	DecodeFunc      string // empty without a request body
	TypedFunc       string
	// NaturalKeyFunc is empty when the contract declares no natural key.
	NaturalKeyFunc string
	// MountFunc gives the ServeMux pattern and the handler as a router
	// serves it; Routes and the contract tests both mount through it.
	MountFunc string
	// PathValuesFunc is empty when the router's wildcards are the path
	// parameters themselves (Route.Segments is empty).
	PathValuesFunc string

	// PathFields are the handle's fields that carry the path parameters.
	PathFields []PathField
	// Params are the parameters the decoder checks, in the order the
	// operation and its path item declare them; the idempotency key's
	// header is the runtime's to check.
	Params  []*Param
	Effects []Effect
	// Fingerprint is what the typed fingerprint covers.
	Fingerprint Fingerprint
	// NaturalKey holds the natural-key pointers in contract order.
	NaturalKey []Pointer

	// Tests are the names and choices of the operation's contract tests.
	Tests Tests
}

// Route is how an operation mounts on a router.
type Route struct {
	Method string
	// Path is the path with one {wildcard} per templated segment, named
	// by the generator: net/http's ServeMux and chi both accept it.
	Path string
	// MuxPattern is the ServeMux pattern: METHOD and Path, with {$} after
	// a trailing slash so that it matches that path only.
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

// PathField is a path parameter as a field of the operation handle.
type PathField struct {
	Param string
	Field string
}

// Effect is one side effect with the name of its enqueuer method.
type Effect struct {
	Name      string
	Method    string
	OnUnknown string
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
