package ir

import "time"

// Phased is what a phased operation generates besides an atomic one's
// request path: one business method per step, and the binding that hands
// the steps to the runtime.
type Phased struct {
	// Func is the function that binds the operation to the service's
	// Handlers (its counterpart of Operation.TypedFunc).
	Func  string
	Steps []Step
}

// Step is one step of a phased operation.
type Step struct {
	// Name is the step's name: its recovery point, stable across releases.
	Name string
	// Method is the step's business method in Handlers; VerifyMethod the
	// method that asks the provider after an unknown outcome, for an
	// external step under the verify policy ("" otherwise).
	Method       string
	VerifyMethod string
	// External steps call outside the database with the step's key.
	External bool
	// OnUnknown (retry, verify or halt) and Timeout are an external
	// step's.
	OnUnknown string
	Timeout   time.Duration
	// Output is the type of the state the step hands to the next one,
	// stored as its JSON encoding; nil when it hands on nothing. The last
	// step returns the operation's answer instead.
	Output *GoType
}
