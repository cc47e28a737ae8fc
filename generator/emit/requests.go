package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitRequest declares the typed request of an operation (its path
// parameters, its query, header and cookie parameters and its body) and the
// function that builds it from the raw request.
func emitRequest(f *jen.File, op *ir.Operation) {
	var fields, params []jen.Code
	for _, p := range op.Params {
		field := append(comments(fmt.Sprintf("%s is the %s parameter %s.", p.Field, p.In, p.Name)), jen.Id(p.Field).Add(typeCode(p.Type)))
		if p.In == ir.InPath {
			fields = append(fields, field...)
		} else {
			params = append(params, field...)
		}
	}
	if op.ParamsType != "" {
		comment(f, fmt.Sprintf("%s holds the query, header and cookie parameters of %s.", op.ParamsType, op.Doc))
		f.Type().Id(op.ParamsType).Struct(params...)
		fields = append(fields, jen.Id(ir.FieldParams).Id(op.ParamsType))
	}
	if op.Request != nil {
		fields = append(fields, comments("Body is the decoded request body.")...)
		fields = append(fields, jen.Id(ir.FieldBody).Op("*").Add(typeCode(op.Request.Type)))
	}
	comment(f, fmt.Sprintf("%s is the typed request of %s that its business method receives: its parameters and its body, decoded before anything is claimed.", op.RequestType, op.Doc))
	f.Type().Id(op.RequestType).Struct(fields...)

	body := []jen.Code{jen.Id("req").Op(":=").Op("&").Id(op.RequestType).Values()}
	if checks := paramChecks(op.Params); op.Request == nil && len(checks) > 0 {
		body = append(body, jen.Id(dec).Op(":=").Qual(jsondecodeImport, "NewValues").Call())
		body = append(body, checks...)
		body = append(body, jen.If(jen.Err().Op(":=").Id(dec).Dot("Finish").Call(), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual(fmtImport, "Errorf").Call(jen.Lit("%w: %w"), jen.Qual(idemimplImport, "ErrInvalidBody"), jen.Err()))))
	}
	if op.Request != nil {
		body = append(body,
			jen.List(jen.Id("b"), jen.Err()).Op(":=").Id(op.DecodeFunc).Call(jen.Id("r")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("req").Dot(ir.FieldBody).Op("=").Id("b"),
		)
	}
	for _, p := range op.Params {
		dst := jen.Op("&").Id("req")
		if p.In != ir.InPath {
			dst = dst.Dot(ir.FieldParams)
		}
		dst = dst.Dot(p.Field)
		var call *jen.Statement
		switch p.Type.Kind {
		case ir.TypePointer:
			call = jen.Qual(idemimplImport, "OptionalParam").Call(jen.Id("r"), jen.Lit(p.In), jen.Lit(p.Name), dst)
		case ir.TypeSlice:
			call = jen.Qual(idemimplImport, "ParamList").Call(jen.Id("r"), jen.Lit(p.In), jen.Lit(p.Name), jen.Lit(p.Required), dst)
		default:
			call = jen.Qual(idemimplImport, "Param").Call(jen.Id("r"), jen.Lit(p.In), jen.Lit(p.Name), jen.Lit(p.Required), dst)
		}
		body = append(body, jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	body = append(body, jen.Return(jen.Id("req"), jen.Nil()))
	rParam := jen.Id("r")
	if op.Request == nil && len(op.Params) == 0 {
		rParam = jen.Id("_")
	}
	comment(f, fmt.Sprintf("%s builds the typed request of %s from the raw request.", op.RequestFunc, op.Doc))
	f.Func().Id(op.RequestFunc).Params(rParam.Op("*").Qual(idemimplImport, "Request")).Params(jen.Op("*").Id(op.RequestType), jen.Error()).Block(body...)
}
