package spec

import "github.com/getkin/kin-openapi/openapi3"

// Document is a loaded OpenAPI document with the contracts of its
// operations.
type Document struct {
	// Path is the file the document was loaded from, as given.
	Path string
	// OpenAPI is the parsed document, with external references resolved.
	OpenAPI *openapi3.T
	// Operations holds every operation of the document, annotated or not,
	// sorted by path and then method; webhooks follow the paths.
	Operations []*Operation
	// Defects are problems of the OpenAPI document itself, such as a
	// dangling $ref or an undeclared path parameter. Each blocks only the
	// operations it touches (see Operation.Blocked).
	Defects []Diagnostic
	// Warnings are problems of the overlays that did not stop the load,
	// such as an action whose target matches nothing under
	// LoadOptions.Unmatched = UnmatchedWarn.
	Warnings []*Error
}

// Operation is one OpenAPI operation and, when it is annotated, its
// idempotency contract.
type Operation struct {
	// ID is the operationId; empty when the document gives none.
	ID     string
	Method string
	// Path is the path template, such as /orders/{id}; for a webhook it is
	// the webhook's name.
	Path    string
	Webhook bool
	// Pos is where the operation object starts.
	Pos Position

	Op       *openapi3.Operation
	PathItem *openapi3.PathItem

	// Contract is nil when the operation has no x-idempotency block.
	Contract *Contract
	// Status is nil unless the operation is a status route (its
	// x-idempotency-status block).
	Status *StatusRoute
	// Overlays lists, for an annotated operation, the overlay actions that
	// set or changed its x-idempotency block or the x-idempotency-defaults
	// it merges, in the order they were applied.
	Overlays []OverlayAction
	// Blocked lists the document defects that touch this operation; an
	// operation with any is not generated.
	Blocked []Diagnostic
}

// Severity ranks a diagnostic.
type Severity int

// The severities, least severe first.
const (
	SeverityInfo Severity = iota
	SeverityWarning
	SeverityError
)

// String returns the lower-case name used in output and in --fail-on.
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	default:
		return "error"
	}
}

// Diagnostic is one finding about a spec: where, which rule, what is wrong
// and how to fix it.
type Diagnostic struct {
	Pos      Position
	Severity Severity
	// Rule is a stable id such as IDEM001; document defects use OAS ids.
	Rule string
	// Path is the field path inside the contract, such as
	// x-idempotency.fingerprint.include[1]; empty when not applicable.
	Path    string
	Message string
	Hint    string
}
