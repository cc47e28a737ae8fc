// Package explain renders the idempotency contracts of a loaded spec as a
// Markdown document for reviewers (idemgen explain): one section per
// annotated operation, written as plain consequences of the contract.
//
// It is a reporting stage after spec: it decides every sentence here and
// hands them to the templates package, which only lays them out. Whether
// an operation is generated it does not decide: idemgen generate's
// judgement comes in as data (Verdict). It must not import the generator
// or the runtime, except the leaf package runtime/jsonpointer.
package explain
