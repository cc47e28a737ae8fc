// Package generator is the second stage of idemgen, the planner: it turns
// the contract model of package spec (and kin-openapi's document under it)
// into a frozen, Go-shaped program, package generator/ir, in which every
// decision is taken (Go names, types, routes, the run-time contract value,
// fingerprint walks, files), and reports every reason it cannot generate an
// annotated operation as a positioned diagnostic of one of its rules. Judge
// makes the one judgement of a spec that idemgen check, explain and
// generate share: the spec's rules, then the planner, and the plan that
// Generate emits, which takes the plan rather than the document so that
// nothing is planned twice. The emitters of package generator/emit print
// the program; SQL, YAML and Markdown come from the templates package.
//
// Generate does no I/O and touches no global state; writing the files and
// comparing them with what is on disk (Write, Check) are separate steps,
// and Run does all of what idemgen generate does. It must not import
// cmd/idemgen.
package generator
