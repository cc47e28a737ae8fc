// Package diff compares the idempotency contracts of two versions of a spec
// (idemgen diff) and classifies every change by what it does to a retry
// already in flight: breaking, risky or safe, each under a stable rule id
// (docs/diff.md).
//
// It is a reporting stage after spec: it reads the merged contracts spec
// loads, the same model check and generate use, so document defaults are
// already applied and a change to x-idempotency-defaults is reported on
// every operation it reaches. It knows nothing of Go, git or the command
// line, and must not import the generator or the runtime.
package diff
