package idem

// EnforceVersion is a constant expression that generated code converts to
// fail compilation against a runtime that cannot run it: a negative value
// does not convert to this unsigned type. Generated packages declare
//
//	const (
//		_ = idem.EnforceVersion(N - idem.MinGeneratedVersion)
//		_ = idem.EnforceVersion(idem.MaxGeneratedVersion - N)
//	)
//
// where N is the generated-code version the generator emitted.
type EnforceVersion uint

// The range of generated-code versions this runtime runs.
const (
	MinGeneratedVersion = 1
	MaxGeneratedVersion = 1
)
