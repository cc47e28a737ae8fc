package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitHandlers declares the interface the service implements: one
// business method per operation.
func emitHandlers(f *jen.File, prog *ir.Program) {
	var methods []jen.Code
	for _, op := range prog.Operations {
		methods = append(methods, comments(fmt.Sprintf("%s runs %s inside the transaction that also holds its idempotency record: what it does through tx commits exactly when the answer is stored. It returns one of the documented answers (%s); one whose status matches the contract's store-failures rolls the business changes back and is stored and replayed like a refusal. Returning an *idem.Rejection answers with that problem, stored the same way; any other error rolls everything back and frees the key.", op.Name, op.Doc, op.ResponseType))...)
		methods = append(methods, jen.Id(op.Name).Params(handlerParams(op, true)...).Params(jen.Id(op.ResponseType), jen.Error()))
	}
	comment(f, "Handlers is the business logic of the idempotent operations; the service implements it and Routes wires it to HTTP. Embed "+prog.Unimplemented+" to implement the operations one at a time.")
	f.Type().Id("Handlers").Interface(methods...)
}

// emitRoutes declares Route, Routes, Register and handle.
func emitRoutes(f *jen.File, prog *ir.Program) {
	comment(f, "Route is one generated operation for any router: its method, its path pattern and its handler. The pattern has one {name} wildcard per templated segment, named so that net/http's ServeMux and chi accept it; the handler reads the wildcards with PathValue, which both routers set. Mount it elsewhere with a router that calls SetPathValue for its wildcards.")
	f.Type().Id("Route").Struct(
		jen.Id("Method").String(),
		jen.Id("Path").String(),
		jen.Id("Handler").Qual(httpImport, "Handler"),
		jen.Line(),
		jen.Comment("pattern is the ServeMux pattern Register mounts."),
		jen.Id("pattern").String(),
	)

	body := []jen.Code{jen.Var().Id("routes").Index().Id("Route")}
	for _, op := range prog.Operations {
		emitTyped(f, op)
		emitMount(f, op)
		body = append(body, jen.Block(routeBlock(op)...))
	}
	body = append(body, jen.Return(jen.Id("routes"), jen.Nil()))
	comment(f, "Routes returns the handlers of the idempotent operations, sorted by path and method. scope gives the trusted scope (tenant) of each request from authentication the server already did; exec runs the operations on PostgreSQL.")
	f.Func().Id("Routes").Params(
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("Handlers"),
		jen.Id("scope").Qual(idemImport, "ScopeFunc"),
		jen.Id("opts").Op("...").Qual(idemimplImport, "HandlerOption"),
	).Params(jen.Index().Id("Route"), jen.Error()).Block(body...)

	comment(f, "Register mounts the idempotent operations on a standard library mux. It returns an error, and does not panic, when the mux refuses a pattern; the patterns are first checked among themselves, so such an error mounts none of them unless the conflict is with a route the mux already had.")
	f.Func().Id("Register").Params(
		jen.Id("mux").Op("*").Qual(httpImport, "ServeMux"),
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("Handlers"),
		jen.Id("scope").Qual(idemImport, "ScopeFunc"),
		jen.Id("opts").Op("...").Qual(idemimplImport, "HandlerOption"),
	).Error().Block(
		jen.List(jen.Id("routes"), jen.Err()).Op(":=").Id("Routes").Call(jen.Id("exec"), jen.Id("h"), jen.Id("scope"), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("check").Op(":=").Qual(httpImport, "NewServeMux").Call(),
		jen.For(jen.List(jen.Id("_"), jen.Id("rt")).Op(":=").Range().Id("routes")).Block(
			jen.If(jen.Err().Op(":=").Id("handle").Call(jen.Id("check"), jen.Id("rt")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		),
		jen.For(jen.List(jen.Id("_"), jen.Id("rt")).Op(":=").Range().Id("routes")).Block(
			jen.If(jen.Err().Op(":=").Id("handle").Call(jen.Id("mux"), jen.Id("rt")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		),
		jen.Return(jen.Nil()),
	)

	comment(f, "handle registers rt on mux, turning the panic of a pattern the mux refuses into an error.")
	f.Func().Id("handle").Params(jen.Id("mux").Op("*").Qual(httpImport, "ServeMux"), jen.Id("rt").Id("Route")).Params(jen.Err().Error()).Block(
		jen.Defer().Func().Params().Block(
			jen.If(jen.Id("v").Op(":=").Recover(), jen.Id("v").Op("!=").Nil()).Block(
				jen.Err().Op("=").Qual(fmtImport, "Errorf").Call(jen.Lit("register %s: %v"), jen.Id("rt").Dot("pattern"), jen.Id("v")),
			),
		).Call(),
		jen.Id("mux").Dot("Handle").Call(jen.Id("rt").Dot("pattern"), jen.Id("rt").Dot("Handler")),
		jen.Return(jen.Nil()),
	)
}

// routeBlock returns the statements that build one operation's handler and
// append its route.
func routeBlock(op *ir.Operation) []jen.Code {
	return []jen.Code{
		jen.List(jen.Id("handler"), jen.Err()).Op(":=").Qual(idemimplImport, "NewTypedHandler").Call(
			jen.Id("exec"), jen.Id(op.TypedFunc).Call(jen.Id("h")), jen.Id("scope"), jen.Id("opts").Op("..."),
		),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("pattern"), jen.Id("served")).Op(":=").Id(op.MountFunc).Call(jen.Id("handler")),
		jen.Id("routes").Op("=").Append(jen.Id("routes"), jen.Id("Route").Values(jen.Dict{
			jen.Id("Method"):  jen.Lit(op.Route.Method),
			jen.Id("Path"):    jen.Lit(op.Route.Path),
			jen.Id("Handler"): jen.Id("served"),
			jen.Id("pattern"): jen.Id("pattern"),
		})),
	}
}

// emitMount declares the function that gives an operation's ServeMux
// pattern and its handler as the router serves it: h itself, or h behind
// the function that sets the path parameters from the wildcards.
func emitMount(f *jen.File, op *ir.Operation) {
	var served jen.Code = jen.Id("h")
	if op.PathValuesFunc != "" {
		served = jen.Qual(httpImport, "HandlerFunc").Call(jen.Func().Params(
			jen.Id("w").Qual(httpImport, "ResponseWriter"), jen.Id("r").Op("*").Qual(httpImport, "Request"),
		).Block(
			jen.If(jen.Op("!").Id(op.PathValuesFunc).Call(jen.Id("r"))).Block(
				jen.Qual(httpImport, "NotFound").Call(jen.Id("w"), jen.Id("r")),
				jen.Return(),
			),
			jen.Id("h").Dot("ServeHTTP").Call(jen.Id("w"), jen.Id("r")),
		))
	}
	comment(f, fmt.Sprintf("%s returns the ServeMux pattern of %s and its handler h as the router serves it; Routes and the contract tests mount the operation through it.", op.MountFunc, op.Doc))
	f.Func().Id(op.MountFunc).Params(jen.Id("h").Qual(httpImport, "Handler")).Params(jen.String(), jen.Qual(httpImport, "Handler")).Block(
		jen.Return(jen.Lit(op.Route.MuxPattern), served),
	)
}

// emitTyped declares the function that binds an operation to the service's
// Handlers: its contract, typed request decoder, typed fingerprint and a
// Run that calls the business method and renders its answer.
func emitTyped(f *jen.File, op *ir.Operation) {
	t := jen.Id(op.RequestType)
	handle := jen.Dict{
		jen.Id("ID"):    jen.Id("op").Dot("ID"),
		jen.Id("Scope"): jen.Id("op").Dot("Scope"),
		jen.Id("Key"):   jen.Id("op").Dot("Key"),
		jen.Id("op"):    jen.Id("op"),
		jen.Id("tx"):    jen.Id("tx"),
	}
	run := []jen.Code{
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("h").Dot(op.Name).Call(jen.Id("ctx"), jen.Id("tx"), jen.Op("&").Id(op.HandleType).Values(handle), jen.Id("req")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.If(jen.Id("res").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual(errorsImport, "New").Call(jen.Lit(op.Doc+" returned no answer")))),
		jen.Return(jen.Id("res").Dot(op.ResponseMethod).Call()),
	}
	sum := jen.Id(op.FingerprintFunc).Call(jen.Id("params"))
	if op.Request != nil {
		sum = jen.Id(op.FingerprintFunc).Call(jen.Id("r").Dot(ir.FieldBody), jen.Id("params"))
	}
	typed := jen.Dict{
		jen.Id("Contract"): jen.Id(op.ContractVar),
		jen.Id("Decode"):   jen.Id(op.RequestFunc),
		jen.Id("Fingerprint"): jen.Func().Params(jen.Id(fingerprintParam(op)).Op("*").Id(op.RequestType), jen.Id("params").Map(jen.String()).String()).
			Params(jen.Qual(fingerprintImport, "Sum"), jen.Error()).Block(jen.Return(sum)),
		jen.Id("Run"): jen.Func().Params(
			jen.Id("ctx").Qual(contextImport, "Context"),
			jen.Id("tx").Qual(pgxImport, "Tx"),
			jen.Id("op").Op("*").Qual(idemimplImport, "Operation"),
			jen.Id("_").Op("*").Qual(idemimplImport, "Request"),
			jen.Id("req").Op("*").Add(t.Clone()),
		).Params(jen.Op("*").Qual(idemimplImport, "Response"), jen.Error()).Block(run...),
	}
	if op.NaturalKeyFunc != "" {
		typed[jen.Id("NaturalKey")] = jen.Func().Params(jen.Id("r").Op("*").Id(op.RequestType)).Params(jen.String(), jen.Error()).Block(
			jen.Return(jen.Id(op.NaturalKeyFunc).Call(jen.Id("r").Dot(ir.FieldBody))),
		)
	}
	comment(f, fmt.Sprintf("%s binds %s to h: its contract, typed request, typed fingerprint and business method.", op.TypedFunc, op.Doc))
	f.Func().Id(op.TypedFunc).Params(jen.Id("h").Id("Handlers")).Qual(idemimplImport, "Typed").Index(t.Clone()).Block(
		jen.Return(jen.Qual(idemimplImport, "Typed").Index(t.Clone()).Values(typed)),
	)
}

// fingerprintParam is the name of the typed request parameter of the
// typed fingerprint, which only operations with a body read.
func fingerprintParam(op *ir.Operation) string {
	if op.Request == nil {
		return "_"
	}
	return "r"
}
