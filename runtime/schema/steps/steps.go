// Package steps holds the numbered steps of the runtime's database schema
// as SQL text: the files beside this one, embedded. It is plain data with
// no database driver, so that the generator can write the migrations
// without linking one; package runtime/schema applies the same steps.
//
// It imports the standard library only.
package steps

import (
	"embed"
	"fmt"
	"slices"
	"strings"
)

// Version is the number of the last step: the schema version this runtime
// needs.
const Version = 6

// Step is one numbered step of the runtime's schema. Steps only add: a
// released step is never edited (runtime/schema's
// TestReleasedStepsNeverChange pins every one), a change to the schema is
// a new step. Each step from 2 on records its own number in
// idempotency_schema_version, and is idempotent (IF NOT EXISTS, ON
// CONFLICT DO NOTHING) so that two tools applying it agree. A step runs in
// one transaction beside live claims: it must take its table locks briefly
// (no table rewrite, no index build on a large table).
type Step struct {
	Number int    // 1, 2, …: the schema's version once the step is applied
	Name   string // the migration file names' part after the number
	Title  string // what the step creates, a lower-case noun phrase
	Up     string // the DDL, with unqualified names, run with search_path set to the schema
	Down   string // the statements that revert Up
}

// files holds each step's Up and Down as NNN_<name>.up.sql and
// .down.sql (sqlc, reading this directory for the store's queries, skips
// .down.sql files).
//
//go:embed *.sql
var files embed.FS

// all is the schema, loaded from files once.
var all = load()

// load reads the steps listed here from files. A new step appends its
// line and its two files; TestStepsAreNumberedAndListed fails on a file
// that is not listed.
func load() []Step {
	list := []Step{
		{Number: 1, Name: "idemgen", Title: "the tables of idemgen's runtime"},
		{Number: 2, Name: "idemgen_schema_version", Title: "the schema version record of idemgen's runtime"},
		{Number: 3, Name: "idemgen_effects", Title: "the effects worker's leases, attempts and support audit"},
		{Number: 4, Name: "idemgen_checkpoints", Title: "the recovery points, leases and fencing tokens of operations in progress, and support's operation audit"},
		{Number: 5, Name: "idemgen_trace_context", Title: "the trace context stored with each effect and recovery point"},
		{Number: 6, Name: "idemgen_inbox", Title: "the inbox of consumed messages and its support audit"},
	}
	for i := range list {
		s := &list[i]
		s.Up, s.Down = file(s, "up"), file(s, "down")
	}
	return list
}

// file returns one embedded step file; a missing one is a broken build of
// this package, which every test of it reports.
func file(s *Step, direction string) string {
	src, err := files.ReadFile(fmt.Sprintf("%03d_%s.%s.sql", s.Number, s.Name, direction))
	if err != nil {
		panic("steps: " + err.Error())
	}
	return string(src)
}

// All returns the schema's steps in order, numbered from 1 to Version.
func All() []Step {
	return slices.Clone(all)
}

// SQL returns the DDL of every step, with unqualified names, in the order
// it must run: the whole schema, for tools that read one file (sqlc).
func SQL() string {
	var b strings.Builder
	for _, s := range all {
		b.WriteString(s.Up)
	}
	return b.String()
}
