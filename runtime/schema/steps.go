package schema

import "github.com/idemgen/idemgen/runtime/schema/steps"

// Version is the schema version this runtime needs: the number of its last
// step. Require refuses an older schema; Migrate brings one up to it.
const Version = steps.Version

// Step is one numbered step of the runtime's schema; see package
// runtime/schema/steps, which holds them.
type Step = steps.Step

// all is the schema's steps, in order.
var all = steps.All()

// Steps returns the schema's steps in order, numbered from 1 to Version.
func Steps() []Step {
	return steps.All()
}

// SchemaSQL returns the DDL of every step, with unqualified names, in the
// order it must run: the whole schema, for tools that read one file (sqlc).
func SchemaSQL() string {
	return steps.SQL()
}
