package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitResponses declares the response interface of an operation and one
// type per documented response, each with the method that renders it for
// the runtime: status, Content-Type, typed headers and body.
func emitResponses(f *jen.File, op *ir.Operation) {
	var names []string
	for _, r := range op.Responses {
		names = append(names, r.Name)
	}
	doc := fmt.Sprintf("%s is an answer of %s", op.ResponseType, op.Doc)
	if len(names) > 0 {
		doc += ": " + strings.Join(names, ", ")
	}
	comment(f, doc+". Only the documented answers implement it.")
	f.Type().Id(op.ResponseType).Interface(
		jen.Id(op.ResponseMethod).Params().Qual(idemimplImport, "Answer"),
	)
	for _, r := range op.Responses {
		emitResponse(f, op, r)
	}
}

// emitResponse declares one response type, its headers struct and its
// rendering method.
func emitResponse(f *jen.File, op *ir.Operation, r *ir.Response) {
	var fields []jen.Code
	if r.Status == 0 {
		fields = append(fields, jen.Id(ir.FieldStatus).Int().Comment(fmt.Sprintf("the status to answer with (%s)", statusRange(r))))
	}
	switch {
	case r.Body != nil:
		fields = append(fields, jen.Id(ir.FieldBody).Add(typeCode(r.Body.Type)))
	case r.RawBody != "":
		fields = append(fields, jen.Id(ir.FieldContentType).String().Comment("the body's media type; empty means "+commentSafe(r.RawBody)), jen.Id(ir.FieldBody).Index().Byte())
	}
	if r.HeadersType != "" {
		var hf []jen.Code
		for _, h := range r.Headers {
			hf = append(hf, jen.Id(h.Field).Add(typeCode(h.Type)).Comment(commentSafe("the response header "+h.Name+optional(h))))
		}
		comment(f, fmt.Sprintf("%s are the headers of the %s answer of %s; they are stored with the answer and replayed.", r.HeadersType, r.Code, op.Doc))
		f.Type().Id(r.HeadersType).Struct(hf...)
		fields = append(fields, jen.Id(ir.FieldHeaders).Id(r.HeadersType))
	}
	doc := fmt.Sprintf("%s is the %s answer of %s", r.Name, r.Code, op.Doc)
	if r.Description != "" {
		doc += ": " + strings.TrimSuffix(r.Description, ".")
	}
	comment(f, doc+".")
	f.Type().Id(r.Name).Struct(fields...)

	recv := jen.Id(r.Name)
	status := jen.Code(jen.Lit(r.Status))
	var class, body, headers jen.Code
	if r.Status == 0 {
		status = jen.Id("r").Dot(ir.FieldStatus)
		if r.Class != 0 {
			class = jen.Lit(r.Class)
		}
	}
	switch {
	case r.Body != nil:
		body = jen.Qual(idemimplImport, "JSONBody").Call(jen.Lit(r.Body.ContentType), jen.Id("r").Dot(ir.FieldBody))
	case r.RawBody != "":
		contentType := jen.Qual(cmpImport, "Or").Call(jen.Id("r").Dot(ir.FieldContentType), jen.Lit(r.RawBody))
		body = jen.Qual(idemimplImport, "RawBody").Call(contentType, jen.Id("r").Dot(ir.FieldBody))
	}
	if len(r.Headers) > 0 {
		var hs []jen.Code
		for _, h := range r.Headers {
			v := jen.Id("r").Dot(ir.FieldHeaders).Dot(h.Field)
			header := "Header"
			switch h.Type.Kind {
			case ir.TypePointer:
				header = "OptionalHeader"
			case ir.TypeSlice:
				header = "ListHeader"
			}
			hs = append(hs, jen.Line().Qual(idemimplImport, header).Call(jen.Lit(h.Name), v))
		}
		headers = jen.Index().Qual(idemimplImport, "AnswerHeader").Values(append(hs, jen.Line())...)
	}
	if r.Status == 0 || body != nil || headers != nil {
		recv = jen.Id("r").Id(r.Name)
	}
	answer := []kv{{"Status", status}, {"Class", class}, {"Body", body}, {"Headers", headers}}
	comment(f, fmt.Sprintf("%s is the answer as the runtime stores and replays it.", op.ResponseMethod))
	f.Func().Params(recv).Id(op.ResponseMethod).Params().Qual(idemimplImport, "Answer").Block(
		jen.Return(jen.Qual(idemimplImport, "Answer").Values(keyed(answer)...)),
	)
}

// optional is the note on an optional header's field.
func optional(h ir.Header) string {
	switch {
	case h.Required:
		return ""
	case h.Type.Kind == ir.TypeSlice:
		return "; empty is not sent"
	}
	return "; nil is not sent"
}

// statusRange words the statuses a range or default response may have.
func statusRange(r *ir.Response) string {
	if r.Class != 0 {
		return fmt.Sprintf("%dxx", r.Class)
	}
	return "a status from 100 to 599"
}

// emitUnimplemented declares the type whose methods answer every
// operation with 501 Not Implemented.
func emitUnimplemented(f *jen.File, prog *ir.Program) {
	comment(f, fmt.Sprintf("%s answers every operation with 501 Not Implemented, a problem never stored; embed it in the service to implement the operations one at a time.", prog.Unimplemented))
	f.Type().Id(prog.Unimplemented).Struct()
	f.Var().Id("_").Id("Handlers").Op("=").Id(prog.Unimplemented).Values()
	for _, op := range prog.Operations {
		if op.Phased != nil {
			unimplementedSteps(f, prog, op)
		} else {
			comment(f, fmt.Sprintf("%s answers %s with 501 Not Implemented.", op.Name, op.Doc))
			f.Func().Params(jen.Id(prog.Unimplemented)).Id(op.Name).Params(handlerParams(op, false)...).Params(jen.Id(op.ResponseType), jen.Error()).Block(
				jen.Return(jen.Nil(), jen.Qual(idemimplImport, "NotImplemented").Call(jen.Lit(op.Doc))),
			)
		}
		emitUnimplementedCurrent(f, prog, op)
	}
}

// paramNamer returns what starts a parameter named n: its name when named
// is set, nothing otherwise (the parameters of an unimplemented method).
func paramNamer(named bool) func(n string) *jen.Statement {
	return func(n string) *jen.Statement {
		if named {
			return jen.Id(n)
		}
		return jen.Null()
	}
}

// handlerParams are the parameters of an operation's business method,
// named when named is set.
func handlerParams(op *ir.Operation, named bool) []jen.Code {
	name := paramNamer(named)
	return []jen.Code{
		name("ctx").Qual(contextImport, "Context"),
		name("tx").Qual(pgxImport, "Tx"),
		name("op").Op("*").Id(op.HandleType),
		name("req").Op("*").Id(op.RequestType),
	}
}
