// Package emit is the last stage of idemgen's generator: it prints the Go
// files of a frozen ir.Program through jennifer, except the types file,
// whose declarations it writes as gofmt prints them (declarations.go):
// formatting them was the largest part of generate's time. It decides nothing (every
// name, type, route and contract value comes from the IR) and changes
// nothing, so files of one program can render at once.
//
// It imports the IR, jennifer and the standard library; never package
// spec, kin-openapi, the planner or the runtime, whose names it writes with
// Qual (a test holds that boundary).
package emit
