// Package ir is the intermediate representation between the planner
// (package generator) and the emitters (package generator/emit): a frozen,
// Go-shaped program in which every decision is already taken. It holds the
// final Go names, the Go types of the bodies, per operation its router
// pattern and how each path parameter is read, the run-time contract value
// exactly as the generated code declares it, the fingerprint walks, the
// effects, and the list of files to write.
//
// The IR is plain data. Emitters read it and change nothing; it must not
// import package spec, kin-openapi or the generator itself, so that the
// emitters, which import it, cannot reach the spec either.
package ir
