package httpapi

// EnforceVersion is a constant expression that generated code converts to
// fail compilation against a runtime that cannot run it: a negative value
// does not convert to this unsigned type. Generated packages declare
//
//	const (
//		_ = idemimpl.EnforceVersion(N - idemimpl.MinGeneratedVersion)
//		_ = idemimpl.EnforceVersion(idemimpl.MaxGeneratedVersion - N)
//	)
//
// where N is the generated-code version the generator emitted.
type EnforceVersion uint

// The range of generated-code versions this runtime runs. Version 2 is
// the split into runtime/idem and runtime/idemimpl; version 4 adds status
// routes and replay: current; version 5 decodes enums with
// jsondecode.Decoder.Enum over a table of values, optional strings and
// enums with StringPtr and EnumPtr, and members with Field.
const (
	MinGeneratedVersion = 2
	MaxGeneratedVersion = 5
)
