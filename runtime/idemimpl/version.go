package idemimpl

import "github.com/idemgen/idemgen/runtime/internal/httpapi"

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
type EnforceVersion = httpapi.EnforceVersion

// The range of generated-code versions this runtime runs.
const (
	MinGeneratedVersion = httpapi.MinGeneratedVersion
	MaxGeneratedVersion = httpapi.MaxGeneratedVersion
)
