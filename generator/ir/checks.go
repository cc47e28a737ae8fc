package ir

// Checks are the validation keywords of a schema that a generated decoder
// checks right after reading a value of its type (runtime/jsondecode
// words the violations). A nil *Checks checks nothing beyond the type.
type Checks struct {
	// MinLength and MaxLength count characters (code points); nil is no
	// bound.
	MinLength, MaxLength *int
	// Pattern is nil without a pattern.
	Pattern *Pattern
	// Format is a string format the runtime checks (FormatDate, …); empty
	// for none or one that is only an annotation.
	Format string
	// Minimum and Maximum are nil without a bound.
	Minimum, Maximum *Bound
	// MultipleOf is nil without one.
	MultipleOf *float64
	// MinItems and MaxItems bound an array's length; nil is no bound.
	MinItems, MaxItems *int
	// UniqueItems refuses an array with two equal elements.
	UniqueItems bool
	// MinProperties and MaxProperties bound an object's members.
	MinProperties, MaxProperties *int
	// Strings lists the allowed values of a string that is not a declared
	// enum (a const, an enum beside other keywords); nil allows any.
	Strings []string
	// Numbers lists the allowed values of an integer or number (enum,
	// const); nil allows any.
	Numbers []float64
}

// The string formats a generated decoder checks; date-time is also the
// TypeTime kind, which checks it while decoding.
const (
	FormatDate     = "date"
	FormatDateTime = "date-time"
	FormatUUID     = "uuid"
	FormatEmail    = "email"
	FormatURI      = "uri"
)

// Bound is a minimum or maximum, exclusive or not.
type Bound struct {
	Value     float64
	Exclusive bool
}

// Pattern is a regular expression of the schema, compiled once per
// generated package into the variable Var.
type Pattern struct {
	// Source is the pattern as the schema writes it; RE2 compiles it (the
	// planner refused the spec otherwise).
	Source string
	Var    string
}
