// Package sqlccheck is a test helper of the runtime: Current proves that a
// package's sqlc-generated code is what sqlc v1.31.1 makes of its query
// files and the schema steps today, so that a query edited without
// regenerating fails the package's tests.
//
// Only _test.go files import it. It must not import the rest of the
// runtime, the generator or the spec packages.
package sqlccheck
