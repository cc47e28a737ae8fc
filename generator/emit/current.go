package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// The Current method of an operation under replay: current: the service
// reads what the completed operation created, as it is now, from its
// stored first answer and the retried request, and answers it as one of
// the operation's documented answers.

// currentParams are the parameters of an operation's Current method,
// named when named is set.
func currentParams(op *ir.Operation, named bool) []jen.Code {
	name := paramNamer(named)
	return []jen.Code{
		name("ctx").Qual(contextImport, "Context"),
		name("tx").Qual(pgxImport, "Tx"),
		name("stored").Op("*").Qual(idemImport, "StoredAnswer"),
		name("req").Op("*").Id(op.RequestType),
	}
}

// currentMethod is the Current method of op in Handlers; nil under
// replay: stored.
func currentMethod(op *ir.Operation) []jen.Code {
	if op.CurrentMethod == "" {
		return nil
	}
	doc := fmt.Sprintf("%s answers a retry of %s once it completed, under replay: current, with the current representation of what it created, as one of its documented answers (%s): find it from stored, the first answer (its Location, its body; stored.Scope is the tenant to look in), and read it through tx, a read-only transaction. Return idem.ErrResourceGone when it no longer exists: the retry answers 410 resource-gone. The operation never runs again, and the record keeps the first answer for support.", op.CurrentMethod, op.Doc, op.ResponseType)
	return append(comments(doc), jen.Id(op.CurrentMethod).Params(currentParams(op, true)...).Params(jen.Id(op.ResponseType), jen.Error()))
}

// emitUnimplementedCurrent declares UnimplementedHandlers' Current method
// of op, when it has one: 501 Not Implemented.
func emitUnimplementedCurrent(f *jen.File, prog *ir.Program, op *ir.Operation) {
	if op.CurrentMethod == "" {
		return
	}
	comment(f, fmt.Sprintf("%s answers a replay of %s with 501 Not Implemented.", op.CurrentMethod, op.Doc))
	f.Func().Params(jen.Id(prog.Unimplemented)).Id(op.CurrentMethod).Params(currentParams(op, false)...).Params(jen.Id(op.ResponseType), jen.Error()).Block(
		jen.Return(jen.Nil(), jen.Qual(idemimplImport, "NotImplemented").Call(jen.Lit("the current replay of "+op.Doc))),
	)
}

// currentBinding is the Current field of op's typed or phased binding:
// its Current method, its answer rendered as the business method's is;
// nil under replay: stored.
func currentBinding(op *ir.Operation) kv {
	if op.CurrentMethod == "" {
		return kv{"Current", nil}
	}
	return kv{"Current", jen.Func().Params(
		jen.Id("ctx").Qual(contextImport, "Context"),
		jen.Id("tx").Qual(pgxImport, "Tx"),
		jen.Id("stored").Op("*").Qual(idemImport, "StoredAnswer"),
		jen.Id("_").Op("*").Qual(idemimplImport, "Request"),
		jen.Id("req").Op("*").Id(op.RequestType),
	).Params(jen.Op("*").Qual(idemimplImport, "Response"), jen.Error()).Block(
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("h").Dot(op.CurrentMethod).Call(jen.Id("ctx"), jen.Id("tx"), jen.Id("stored"), jen.Id("req")),
		jen.Return(jen.Qual(idemimplImport, "Respond").Call(jen.Nil(), jen.Id("res"), jen.Err(), jen.Id(op.ResponseType).Dot(op.ResponseMethod))),
	)}
}
