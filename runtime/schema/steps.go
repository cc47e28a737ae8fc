package schema

import (
	"embed"
	"fmt"
	"slices"
	"strings"
)

// Version is the schema version this runtime needs: the number of its last
// step. Require refuses an older schema; Migrate brings one up to it.
const Version = 4

// Step is one numbered step of the runtime's schema. Steps only add: a
// released step is never edited (TestReleasedStepsNeverChange pins every
// one), a change to the schema is a new step. Each step from 2 on records
// its own number in idempotency_schema_version, and is idempotent (IF NOT
// EXISTS, ON CONFLICT DO NOTHING) so that two tools applying it agree. A
// step runs in one transaction beside live claims: it must take its table
// locks briefly (no table rewrite, no index build on a large table).
type Step struct {
	Number int    // 1, 2, …: the schema's version once the step is applied
	Name   string // the migration file names' part after the number
	Title  string // what the step creates, a lower-case noun phrase
	Up     string // the DDL, with unqualified names, run with search_path set to the schema
	Down   string // the statements that revert Up
}

// stepFiles holds each step's Up and Down as steps/NNN_<name>.up.sql and
// .down.sql (sqlc, reading the directory for the store's queries, skips
// .down.sql files).
//
//go:embed steps/*.sql
var stepFiles embed.FS

// steps is the schema, loaded from stepFiles once.
var steps = loadSteps()

// loadSteps reads the steps listed here from stepFiles. A new step appends
// its line and its two files; TestStepFilesAreListed fails on a file that
// is not listed.
func loadSteps() []Step {
	list := []Step{
		{Number: 1, Name: "idemgen", Title: "the tables of idemgen's runtime"},
		{Number: 2, Name: "idemgen_schema_version", Title: "the schema version record of idemgen's runtime"},
		{Number: 3, Name: "idemgen_effects", Title: "the effects worker's leases, attempts and support audit"},
		{Number: 4, Name: "idemgen_checkpoints", Title: "the recovery points, leases and fencing tokens of operations in progress, and support's operation audit"},
	}
	for i := range list {
		s := &list[i]
		s.Up, s.Down = stepFile(s, "up"), stepFile(s, "down")
	}
	return list
}

// stepFile returns one embedded step file; a missing one is a broken build
// of this package, which every test of it reports.
func stepFile(s *Step, direction string) string {
	src, err := stepFiles.ReadFile(fmt.Sprintf("steps/%03d_%s.%s.sql", s.Number, s.Name, direction))
	if err != nil {
		panic("schema: " + err.Error())
	}
	return string(src)
}

// Steps returns the schema's steps in order, numbered from 1 to Version.
func Steps() []Step {
	return slices.Clone(steps)
}

// SchemaSQL returns the DDL of every step, with unqualified names, in the
// order it must run: the whole schema, for tools that read one file (sqlc).
func SchemaSQL() string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Up)
	}
	return b.String()
}
