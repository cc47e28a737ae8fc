// Package spec is the first stage of idemgen: it loads OpenAPI documents,
// reads their x-idempotency contracts into a typed model that keeps the
// source position of every value, and checks those contracts against lint
// rules.
//
// The model is plain data. This package knows nothing of Go code generation
// and must not import the generator, the templates or the runtime, except
// the runtime's two leaf packages it shares with both: runtime/defaults,
// the one table of contract defaults, and runtime/jsonpointer; and
// internal/confine, the path check its sandbox shares with the generator.
package spec
