// Package generator is the second stage of idemgen: it turns the contract
// model of package spec into a Go-shaped plan (names, types, tables, all
// decided once) and emits files from it: Go through jennifer, SQL, YAML and
// Markdown through the templates package.
//
// Generate does no I/O and touches no global state; writing the files and
// comparing them with what is on disk (Write, Check) are separate steps.
// It must not import cmd/idemgen.
package generator
