// Package ir is the intermediate representation between the planner
// (package generator) and the emitters (package generator/emit): a frozen,
// Go-shaped program in which every decision is already taken. It holds the
// final Go names, the Go types of the bodies, per operation its router
// pattern and how each parameter is read, the run-time contract (in the
// generator's own terms: the emitters alone spell runtime names), the
// fingerprint walks, the effects, and the list of files to write.
//
// The IR is plain data and imports the standard library only: not package
// spec, kin-openapi or the generator itself, so that the emitters, which
// import it, cannot reach the spec either; and not the runtime, so that the
// generator does not link the executor and its database driver.
package ir
