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
		if op.Phased != nil {
			methods = append(methods, stepMethods(op)...)
			methods = append(methods, currentMethod(op)...)
			continue
		}
		methods = append(methods, comments(fmt.Sprintf("%s runs %s and returns one of its documented answers (%s).", op.Name, op.Doc, op.ResponseType))...)
		methods = append(methods, jen.Id(op.Name).Params(handlerParams(op, true)...).Params(jen.Id(op.ResponseType), jen.Error()))
		methods = append(methods, currentMethod(op)...)
	}
	doc := "Handlers is the business logic of the idempotent operations; the service implements it and Routes wires it to HTTP. Each method runs inside the transaction that also holds its operation's idempotency record: what it does through tx commits exactly when its answer is stored. An answer whose status matches the contract's store-failures rolls the business changes back and is stored and replayed like a refusal; returning an *idem.Rejection answers with that problem, stored the same way; any other error rolls everything back and frees the key."
	if hasPhased(prog) {
		doc += " A phased operation has one method per step instead, each documented with what a crash, a retry or a time-out does there."
	}
	comment(f, doc+" Embed "+prog.Unimplemented+" to implement the operations one at a time.")
	f.Type().Id("Handlers").Interface(methods...)
}

// emitRoutes declares Route, each operation's typed binding and mount,
// Routes and Register; the runtime builds and mounts the handlers.
func emitRoutes(f *jen.File, prog *ir.Program) {
	comment(f, "Route is one generated operation for any router: its method, its path pattern and its handler; see idemimpl.Route.")
	f.Type().Id("Route").Op("=").Qual(idemimplImport, "Route")

	var bindings []jen.Code
	for _, op := range prog.Operations {
		if op.Phased != nil {
			emitPhased(f, op)
			emitMount(f, op)
			bindings = append(bindings, jen.Line().Qual(idemimplImport, "BindPhased").Call(jen.Id(op.Phased.Func).Call(jen.Id("h")), jen.Id(op.MountVar)))
			continue
		}
		emitTyped(f, op)
		emitMount(f, op)
		bindings = append(bindings, jen.Line().Qual(idemimplImport, "Bind").Call(jen.Id(op.TypedFunc).Call(jen.Id("h")), jen.Id(op.MountVar)))
	}
	bindings = append(bindings, emitStatuses(f, prog)...)
	comment(f, routesDoc(prog))
	f.Func().Id("Routes").Params(
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("Handlers"),
		jen.Id("scope").Qual(idemImport, "ScopeFunc"),
		jen.Id("opts").Op("...").Qual(idemimplImport, "HandlerOption"),
	).Params(jen.Index().Id("Route"), jen.Error()).Block(
		jen.Return(jen.Qual(idemimplImport, "Routes").Call(append([]jen.Code{jen.Id("exec"), jen.Id("scope"), jen.Id("opts")}, append(bindings, jen.Line())...)...)),
	)

	comment(f, "Register mounts the idempotent operations on a standard library mux. A pattern the mux refuses is an error, not a panic; the patterns are checked among themselves first, so a conflict mounts none of them unless it is with a route the mux already had.")
	f.Func().Id("Register").Params(
		jen.Id("mux").Op("*").Qual(httpImport, "ServeMux"),
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("Handlers"),
		jen.Id("scope").Qual(idemImport, "ScopeFunc"),
		jen.Id("opts").Op("...").Qual(idemimplImport, "HandlerOption"),
	).Error().Block(
		jen.List(jen.Id("routes"), jen.Err()).Op(":=").Id("Routes").Call(jen.Id("exec"), jen.Id("h"), jen.Id("scope"), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Return(jen.Qual(idemimplImport, "Register").Call(jen.Id("mux"), jen.Id("routes"))),
	)
}

// emitMount declares how an operation mounts: at its ServeMux pattern,
// behind the function that takes its path apart when it has one.
func emitMount(f *jen.File, op *ir.Operation) {
	pathValues := jen.Nil()
	if op.PathValuesFunc != "" {
		pathValues = jen.Id(op.PathValuesFunc)
	}
	comment(f, fmt.Sprintf("%s mounts %s on a router.", op.MountVar, op.Doc))
	f.Var().Id(op.MountVar).Op("=").Qual(idemimplImport, "Mount").Call(jen.Lit(op.Route.MuxPattern), pathValues)
}

// emitTyped declares the function that binds an operation to the service's
// Handlers: its contract, typed request decoder, typed fingerprint,
// natural key and a Run that calls the business method and has the
// runtime render its answer.
func emitTyped(f *jen.File, op *ir.Operation) {
	t := jen.Id(op.RequestType)
	handle := handleValue(op)
	run := jen.Func().Params(
		jen.Id("ctx").Qual(contextImport, "Context"),
		jen.Id("tx").Qual(pgxImport, "Tx"),
		jen.Id("op").Op("*").Qual(idemimplImport, "Operation"),
		jen.Id("_").Op("*").Qual(idemimplImport, "Request"),
		jen.Id("req").Op("*").Add(t.Clone()),
	).Params(jen.Op("*").Qual(idemimplImport, "Response"), jen.Error()).Block(
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("h").Dot(op.Name).Call(jen.Id("ctx"), jen.Id("tx"), handle, jen.Id("req")),
		jen.Return(jen.Qual(idemimplImport, "Respond").Call(jen.Id("op"), jen.Id("res"), jen.Err(), jen.Id(op.ResponseType).Dot(op.ResponseMethod))),
	)
	var naturalKey jen.Code
	if op.NaturalKeyFunc != "" {
		naturalKey = jen.Id(op.NaturalKeyFunc)
	}
	typed := []kv{
		{"Contract", jen.Id(op.ContractVar)},
		{"Decode", jen.Id(op.DecodeFunc)},
		{"Fingerprint", jen.Id(op.FingerprintFunc)},
		{"NaturalKey", naturalKey},
		{"Run", run},
		currentBinding(op),
	}
	comment(f, fmt.Sprintf("%s binds %s to h: its contract, typed request, typed fingerprint and business method.", op.TypedFunc, op.Doc))
	f.Func().Id(op.TypedFunc).Params(jen.Id("h").Id("Handlers")).Qual(idemimplImport, "Typed").Index(t.Clone()).Block(
		jen.Return(jen.Qual(idemimplImport, "Typed").Index(t.Clone()).Values(keyed(typed)...)),
	)
}
