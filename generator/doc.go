// Package generator is the stage of idemgen that turns the contract model of
// package spec into files: it decides everything once in a Go-shaped plan
// (names, types, tables) and then emits Go through jennifer and SQL, YAML and
// Markdown through templates.
//
// It does no I/O: writing files, --check and cleanup belong to the caller.
// It must not import cmd.
package generator
