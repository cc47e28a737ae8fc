package generator

import (
	"github.com/dave/jennifer/jen"
)

// requestType is the Go type of an operation's request body in the typed
// handler: its planned type, or struct{} when it has none.
func requestType(op *OperationPlan) *jen.Statement {
	if op.Types.Request == nil {
		return jen.Struct()
	}
	return op.Types.Request.Type.Code()
}

// emitHandlers declares the interface the service implements: one
// business method per operation.
func emitHandlers(f *jen.File, plan *Plan) {
	var methods []jen.Code
	for _, op := range plan.Operations {
		params := []jen.Code{
			jen.Id("ctx").Qual(contextImport, "Context"),
			jen.Id("tx").Qual(pgxImport, "Tx"),
			jen.Id("op").Op("*").Id(op.HandleType),
		}
		if op.Types.Request != nil {
			params = append(params, jen.Id("req").Op("*").Add(op.Types.Request.Type.Code()))
		}
		results := jen.Error()
		if op.Types.Response != nil {
			results = jen.Parens(jen.List(jen.Op("*").Add(op.Types.Response.Type.Code()), jen.Error()))
		}
		methods = append(methods,
			jen.Commentf("%s runs %s inside the transaction that also holds its idempotency record: what it does through tx commits exactly when the response is stored. Returning an *idem.Rejection answers with that problem (stored and replayed when the contract's store-failures match); any other error rolls everything back and frees the key.", op.Types.Name, where(op)),
			jen.Id(op.Types.Name).Params(params...).Add(results),
		)
	}
	f.Comment("Handlers is the business logic of the idempotent operations; the service implements it and Routes wires it to HTTP.")
	f.Type().Id("Handlers").Interface(methods...)
}

// emitRoutes declares Route, Routes and Register.
func emitRoutes(f *jen.File, plan *Plan) {
	f.Comment("Route is one generated operation for any router: its method, its path pattern and its handler.")
	f.Type().Id("Route").Struct(
		jen.Id("Method").String(),
		jen.Id("Path").String(),
		jen.Id("Handler").Qual(httpImport, "Handler"),
	)

	body := []jen.Code{jen.Var().Id("routes").Index().Id("Route")}
	for _, op := range plan.Operations {
		emitTyped(f, op)
		body = append(body, jen.Block(routeBlock(op)...))
	}
	body = append(body, jen.Return(jen.Id("routes"), jen.Nil()))
	f.Comment("Routes returns the handlers of the idempotent operations, sorted by path and method. scope gives the trusted scope (tenant) of each request from authentication the server already did; exec runs the operations on PostgreSQL.")
	f.Func().Id("Routes").Params(
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("Handlers"),
		jen.Id("scope").Qual(idemImport, "ScopeFunc"),
		jen.Id("opts").Op("...").Qual(idemimplImport, "HandlerOption"),
	).Params(jen.Index().Id("Route"), jen.Error()).Block(body...)

	f.Comment("Register mounts the idempotent operations on a standard library mux with method patterns such as \"POST /orders\"; path parameters are read with PathValue.")
	f.Func().Id("Register").Params(
		jen.Id("mux").Op("*").Qual(httpImport, "ServeMux"),
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("Handlers"),
		jen.Id("scope").Qual(idemImport, "ScopeFunc"),
		jen.Id("opts").Op("...").Qual(idemimplImport, "HandlerOption"),
	).Error().Block(
		jen.List(jen.Id("routes"), jen.Err()).Op(":=").Id("Routes").Call(jen.Id("exec"), jen.Id("h"), jen.Id("scope"), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.For(jen.List(jen.Id("_"), jen.Id("rt")).Op(":=").Range().Id("routes")).Block(
			jen.Id("mux").Dot("Handle").Call(jen.Id("rt").Dot("Method").Op("+").Lit(" ").Op("+").Id("rt").Dot("Path"), jen.Id("rt").Dot("Handler")),
		),
		jen.Return(jen.Nil()),
	)
}

// routeBlock returns the statements that build one operation's handler and
// append its route.
func routeBlock(op *OperationPlan) []jen.Code {
	o := op.Types.Op
	return []jen.Code{
		jen.List(jen.Id("handler"), jen.Err()).Op(":=").Qual(idemimplImport, "NewTypedHandler").Call(
			jen.Id("exec"), jen.Id(op.TypedFunc).Call(jen.Id("h")), jen.Id("scope"), jen.Id("opts").Op("..."),
		),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("routes").Op("=").Append(jen.Id("routes"), jen.Id("Route").Values(jen.Dict{
			jen.Id("Method"):  jen.Lit(o.Method),
			jen.Id("Path"):    jen.Lit(o.Path),
			jen.Id("Handler"): jen.Id("handler"),
		})),
	}
}

// emitTyped declares the function that binds an operation to the service's
// Handlers: its contract, decoder, typed fingerprint and a Run that calls
// the business method and encodes its answer.
func emitTyped(f *jen.File, op *OperationPlan) {
	t := requestType(op)
	call := []jen.Code{jen.Id("ctx"), jen.Id("tx"), jen.Id("handle")}
	if op.Types.Request != nil {
		call = append(call, jen.Id("req"))
	}
	handle := jen.Dict{
		jen.Id("Operation"): jen.Id("op"),
		jen.Id("Header"):    jen.Qual(httpImport, "Header").Values(),
		jen.Id("tx"):        jen.Id("tx"),
	}
	for _, pf := range op.PathFields {
		handle[jen.Id(pf.Field)] = jen.Id("r").Dot("PathParams").Index(jen.Lit(pf.Param))
	}
	run := []jen.Code{jen.Id("handle").Op(":=").Op("&").Id(op.HandleType).Values(handle)}
	if op.Types.Response != nil {
		run = append(run,
			jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("h").Dot(op.Types.Name).Call(call...),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("body"), jen.Err()).Op(":=").Qual(jsonImport, "Marshal").Call(jen.Id("res")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("handle").Dot("Header").Dot("Set").Call(jen.Lit("Content-Type"), jen.Lit(MediaJSON)),
			jen.Return(jen.Op("&").Qual(idemimplImport, "Response").Values(jen.Dict{
				jen.Id("Status"): jen.Lit(op.SuccessStatus),
				jen.Id("Header"): jen.Id("handle").Dot("Header"),
				jen.Id("Body"):   jen.Id("body"),
			}), jen.Nil()),
		)
	} else {
		run = append(run,
			jen.If(jen.Err().Op(":=").Id("h").Dot(op.Types.Name).Call(call...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Op("&").Qual(idemimplImport, "Response").Values(jen.Dict{
				jen.Id("Status"): jen.Lit(op.SuccessStatus),
				jen.Id("Header"): jen.Id("handle").Dot("Header"),
			}), jen.Nil()),
		)
	}
	typed := jen.Dict{
		jen.Id("Contract"): jen.Id(op.ContractVar),
		jen.Id("Run"): jen.Func().Params(
			jen.Id("ctx").Qual(contextImport, "Context"),
			jen.Id("tx").Qual(pgxImport, "Tx"),
			jen.Id("op").Op("*").Qual(idemimplImport, "Operation"),
			jen.Id(requestParamName(op)).Op("*").Qual(idemimplImport, "Request"),
			jen.Id(runReqName(op)).Op("*").Add(t.Clone()),
		).Params(jen.Op("*").Qual(idemimplImport, "Response"), jen.Error()).Block(run...),
	}
	if op.NaturalKeyFunc != "" {
		typed[jen.Id("NaturalKey")] = jen.Id(op.NaturalKeyFunc)
	}
	if op.Types.Request != nil {
		typed[jen.Id("Decode")] = jen.Id(op.DecodeFunc)
		typed[jen.Id("Fingerprint")] = jen.Id(op.FingerprintFunc)
	} else {
		typed[jen.Id("Fingerprint")] = jen.Func().Params(jen.Id("_").Op("*").Struct(), jen.Id("params").Map(jen.String()).String()).
			Params(jen.Qual(fingerprintImport, "Sum"), jen.Error()).Block(jen.Return(jen.Id(op.FingerprintFunc).Call(jen.Id("params"))))
	}
	f.Commentf("%s binds %s to h: its contract, decoder, typed fingerprint and business method.", op.TypedFunc, where(op))
	f.Func().Id(op.TypedFunc).Params(jen.Id("h").Id("Handlers")).Qual(idemimplImport, "Typed").Index(t.Clone()).Block(
		jen.Return(jen.Qual(idemimplImport, "Typed").Index(t.Clone()).Values(typed)),
	)
}

// requestParamName is the name of Run's *idemimpl.Request parameter, which
// only operations with path parameters read.
func requestParamName(op *OperationPlan) string {
	if len(op.PathFields) == 0 {
		return "_"
	}
	return "r"
}

// runReqName is the name of the typed request parameter of Run; unused
// when the operation has no body.
func runReqName(op *OperationPlan) string {
	if op.Types.Request == nil {
		return "_"
	}
	return "req"
}
