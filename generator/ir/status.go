package ir

// StatusRoute is a generated status route: a GET that tells a client what
// became of its attempt of Target, by the key it sent.
type StatusRoute struct {
	// Doc names the route in comments: operationId (GET /path). Safe to
	// put in a comment.
	Doc string
	// Target is the operation whose attempts the route tells.
	Target *Operation
	// Contract is the run-time contract the generated code declares.
	Contract StatusContract
	// Route is how the route mounts on a router.
	Route Route
	// ContractVar, MountVar and PathValuesFunc name the route's generated
	// symbols; PathValuesFunc is empty when Route.Segments is.
	ContractVar    string
	MountVar       string
	PathValuesFunc string
	// Test names the route's generated contract test.
	Test string
}

// StatusContract is the run-time contract of a status route
// (idemimpl.StatusContract).
type StatusContract struct {
	Operation string // the target's operationId
	Method    string
	Route     string // the path template
	Parameter string // the path parameter that carries the key
	MaxLength int    // the target's key max-length
}
