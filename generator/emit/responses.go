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
	comment(f, doc+". Only the documented answers implement it; the business method returns one of them, or an error (an *idem.Rejection for a problem).")
	f.Type().Id(op.ResponseType).Interface(
		jen.Id(op.ResponseMethod).Params().Params(jen.Op("*").Qual(idemimplImport, "Response"), jen.Error()),
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
		fields = append(fields, comments(fmt.Sprintf("Status is the status to answer with (%s).", statusRange(r)))...)
		fields = append(fields, jen.Id(ir.FieldStatus).Int())
	}
	switch {
	case r.Body != nil:
		fields = append(fields, jen.Id(ir.FieldBody).Add(typeCode(r.Body.Type)))
	case r.RawBody != "":
		fields = append(fields, comments(fmt.Sprintf("ContentType is the body's media type; empty means %s.", r.RawBody))...)
		fields = append(fields, jen.Id(ir.FieldContentType).String(), jen.Id(ir.FieldBody).Index().Byte())
	}
	if r.HeadersType != "" {
		var hf []jen.Code
		for _, h := range r.Headers {
			hf = append(hf, comments(fmt.Sprintf("%s is the response header %s%s.", h.Field, h.Name, optional(h)))...)
			hf = append(hf, jen.Id(h.Field).Add(typeCode(h.Type)))
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

	status := jen.Code(jen.Lit(r.Status))
	var body []jen.Code
	if r.Status == 0 {
		status = jen.Id("r").Dot(ir.FieldStatus)
		body = append(body, jen.If(statusOutside(r)).Block(
			jen.Return(jen.Nil(), jen.Qual(fmtImport, "Errorf").Call(jen.Lit("%s: status %d is not "+statusRange(r)), jen.Lit(op.Doc), jen.Id("r").Dot(ir.FieldStatus))),
		))
	}
	body = append(body, jen.Id("header").Op(":=").Qual(httpImport, "Header").Values())
	res := jen.Dict{jen.Id("Status"): status, jen.Id("Header"): jen.Id("header")}
	switch {
	case r.Body != nil:
		body = append(body,
			jen.List(jen.Id("body"), jen.Err()).Op(":=").Qual(jsonImport, "Marshal").Call(jen.Id("r").Dot(ir.FieldBody)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("header").Dot("Set").Call(jen.Lit("Content-Type"), jen.Lit(r.Body.ContentType)),
		)
		res[jen.Id("Body")] = jen.Id("body")
	case r.RawBody != "":
		body = append(body,
			jen.Id("contentType").Op(":=").Id("r").Dot(ir.FieldContentType),
			jen.If(jen.Id("contentType").Op("==").Lit("")).Block(jen.Id("contentType").Op("=").Lit(r.RawBody)),
			jen.Id("header").Dot("Set").Call(jen.Lit("Content-Type"), jen.Id("contentType")),
		)
		res[jen.Id("Body")] = jen.Id("r").Dot(ir.FieldBody)
	}
	var typed []jen.Code
	for _, h := range r.Headers {
		typed = append(typed, jen.Lit(h.Name))
		v := jen.Id("r").Dot(ir.FieldHeaders).Dot(h.Field)
		switch h.Type.Kind {
		case ir.TypePointer:
			body = append(body, jen.If(v.Clone().Op("!=").Nil()).Block(
				jen.Id("header").Dot("Set").Call(jen.Lit(h.Name), jen.Qual(idemimplImport, "FormatParam").Call(jen.Op("*").Add(v))),
			))
		case ir.TypeSlice:
			body = append(body, jen.If(jen.Len(v.Clone()).Op(">").Lit(0)).Block(
				jen.Id("header").Dot("Set").Call(jen.Lit(h.Name), jen.Qual(idemimplImport, "FormatParamList").Call(v)),
			))
		default:
			body = append(body, jen.Id("header").Dot("Set").Call(jen.Lit(h.Name), jen.Qual(idemimplImport, "FormatParam").Call(v)))
		}
	}
	if len(typed) > 0 {
		res[jen.Id("Typed")] = jen.Index().String().Values(typed...)
	}
	body = append(body, jen.Return(jen.Op("&").Qual(idemimplImport, "Response").Values(res), jen.Nil()))
	comment(f, fmt.Sprintf("%s renders the answer for the runtime, which stores and replays it as the contract of %s says.", op.ResponseMethod, op.Doc))
	f.Func().Params(jen.Id("r").Id(r.Name)).Id(op.ResponseMethod).Params().Params(jen.Op("*").Qual(idemimplImport, "Response"), jen.Error()).Block(body...)
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

// statusOutside is the condition under which a range or default response's
// Status is not one it may have.
func statusOutside(r *ir.Response) jen.Code {
	s := jen.Id("r").Dot(ir.FieldStatus)
	if r.Class != 0 {
		return s.Op("/").Lit(100).Op("!=").Lit(r.Class)
	}
	return s.Clone().Op("<").Lit(100).Op("||").Add(s).Op(">").Lit(599)
}

// emitUnimplemented declares the type whose methods answer every
// operation with 501 Not Implemented.
func emitUnimplemented(f *jen.File, prog *ir.Program) {
	comment(f, fmt.Sprintf("%s answers every operation with 501 Not Implemented (an application/problem+json refusal, never stored). Embed it in the service to implement the operations one at a time.", prog.Unimplemented))
	f.Type().Id(prog.Unimplemented).Struct()
	f.Var().Id("_").Id("Handlers").Op("=").Id(prog.Unimplemented).Values()
	for _, op := range prog.Operations {
		comment(f, fmt.Sprintf("%s answers %s with 501 Not Implemented.", op.Name, op.Doc))
		f.Func().Params(jen.Id(prog.Unimplemented)).Id(op.Name).Params(handlerParams(op, false)...).Params(jen.Id(op.ResponseType), jen.Error()).Block(
			jen.Return(jen.Nil(), jen.Op("&").Qual(idemImport, "Rejection").Values(jen.Dict{
				jen.Id("Status"): jen.Qual(httpImport, "StatusNotImplemented"),
				jen.Id("Title"):  jen.Lit("Not Implemented"),
				jen.Id("Detail"): jen.Lit(op.Doc + " is not implemented."),
			})),
		)
	}
}

// handlerParams are the parameters of an operation's business method,
// named when named is set.
func handlerParams(op *ir.Operation, named bool) []jen.Code {
	name := func(n string) *jen.Statement {
		if named {
			return jen.Id(n)
		}
		return jen.Null()
	}
	return []jen.Code{
		name("ctx").Qual(contextImport, "Context"),
		name("tx").Qual(pgxImport, "Tx"),
		name("op").Op("*").Id(op.HandleType),
		name("req").Op("*").Id(op.RequestType),
	}
}
