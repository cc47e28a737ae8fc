package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitStatuses declares each status route of prog (its run-time contract,
// how its path is taken apart when it must be, and its mount) and returns
// the bindings Routes lists for them.
func emitStatuses(f *jen.File, prog *ir.Program) []jen.Code {
	var bindings []jen.Code
	for _, s := range prog.Statuses {
		c := s.Contract
		comment(f, fmt.Sprintf("%s is the run-time contract of the status route %s: what became of an attempt of %s, by the key in its path parameter %s.", s.ContractVar, s.Doc, s.Target.Doc, c.Parameter))
		f.Var().Id(s.ContractVar).Op("=").Qual(idemimplImport, "StatusContract").Values(keyed([]kv{
			{"Operation", jen.Lit(c.Operation)},
			{"Method", jen.Lit(c.Method)},
			{"Route", jen.Lit(c.Route)},
			{"Parameter", jen.Lit(c.Parameter)},
			{"MaxLength", jen.Lit(c.MaxLength)},
		})...)
		pathValues := jen.Nil()
		if s.PathValuesFunc != "" {
			emitPathValues(f, &ir.Operation{Doc: s.Doc, Route: s.Route, PathValuesFunc: s.PathValuesFunc})
			pathValues = jen.Id(s.PathValuesFunc)
		}
		comment(f, fmt.Sprintf("%s mounts the status route %s on a router.", s.MountVar, s.Doc))
		f.Var().Id(s.MountVar).Op("=").Qual(idemimplImport, "Mount").Call(jen.Lit(s.Route.MuxPattern), pathValues)
		bindings = append(bindings, jen.Line().Qual(idemimplImport, "BindStatus").Call(jen.Id(s.ContractVar), jen.Id(s.MountVar)))
	}
	return bindings
}

// routesDoc is the doc comment of Routes.
func routesDoc(prog *ir.Program) string {
	doc := "Routes returns the handlers of the idempotent operations, sorted by path and method"
	if len(prog.Statuses) > 0 {
		doc += ", then their status routes, which tell a client what became of its attempt by its key and run nothing"
	}
	return doc + ": exec runs them on PostgreSQL, in the trusted scope (tenant) scope gives each request from the server's authentication."
}

// emitStatusTests declares, per status route of an atomic operation, the
// test that runs the route's contract (idemtest.RunStatus) with the
// operation's fixture.
func emitStatusTests(f *jen.File, prog *ir.Program) {
	for _, s := range prog.Statuses {
		if s.Target.Phased != nil {
			continue // RunStatus drives an atomic operation's attempts
		}
		_, kase := contractCase(s.Target)
		comment(f, fmt.Sprintf("%s proves the status route %s against PostgreSQL: unknown and another scope's keys alike, in progress, completed with the stored answer, expired, a malformed key.", s.Test, s.Doc))
		f.Func().Id(s.Test).Params(jen.Id("t").Op("*").Qual(testingImport, "T")).Block(
			jen.Id("fx").Op(":=").Id(fixtureFunc).Call(jen.Id("t")),
			jen.Qual(idemtestImport, "RunStatus").Call(jen.Id("t"), jen.Qual(idemtestImport, "StatusCase").Index(jen.Id(s.Target.RequestType)).Values(keyed([]kv{
				{"Case", kase},
				{"Status", jen.Id(s.ContractVar)},
				{"Mount", jen.Id(s.MountVar)},
			})...)),
		)
	}
}
