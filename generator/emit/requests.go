package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitRequest declares the typed request of an operation: its path
// parameters, its query, header and cookie parameters and its body.
func emitRequest(f *jen.File, op *ir.Operation) {
	var fields, params []jen.Code
	for _, p := range op.Params {
		field := jen.Id(p.Field).Add(typeCode(p.Type)).Comment(fmt.Sprintf("the %s parameter %s", p.In, commentSafe(p.Name)))
		if p.In == ir.InPath {
			fields = append(fields, field)
		} else {
			params = append(params, field)
		}
	}
	if op.ParamsType != "" {
		comment(f, fmt.Sprintf("%s holds the query, header and cookie parameters of %s.", op.ParamsType, op.Doc))
		f.Type().Id(op.ParamsType).Struct(params...)
		fields = append(fields, jen.Id(ir.FieldParams).Id(op.ParamsType))
	}
	if op.Request != nil {
		fields = append(fields, jen.Id(ir.FieldBody).Op("*").Add(typeCode(op.Request.Type)).Comment("the decoded request body"))
	}
	comment(f, fmt.Sprintf("%s is the typed request of %s: its parameters and body, decoded before anything is claimed.", op.RequestType, op.Doc))
	f.Type().Id(op.RequestType).Struct(fields...)
}

// emitDecode declares the function that decodes the typed request from
// the raw one: the parameters with their schemas' checks, each set from
// the value its check reads, then the body (generated strict JSON decoding
// with the schema's checks, a form, or a multipart body), every violation
// reported at once;
// the parameters no check reads are decoded last.
func emitDecode(f *jen.File, op *ir.Operation) {
	checks := paramChecks(op.Params)
	req := jen.Id("req")
	var body []jen.Code
	newReq := jen.Dict{}
	if op.Request != nil && op.Request.Required {
		newReq[jen.Id(ir.FieldBody)] = jen.New(typeCode(op.Request.Type))
	}
	body = append(body, req.Clone().Op(":=").Op("&").Id(op.RequestType).Values(newReq))
	switch {
	case op.Request == nil && len(checks) == 0:
	case op.Request == nil:
		body = append(body, jen.Id(dec).Op(":=").Qual(jsondecodeImport, "NewValues").Call())
		body = append(body, checks...)
	case op.Request.MediaType == ir.MediaForm:
		body = append(body, jen.Id(dec).Op(":=").Qual(jsondecodeImport, "NewValues").Call())
		body = append(body, checks...)
		body = append(body, optionalBody(op.Request, formBody(req.Clone().Dot(ir.FieldBody)))...)
	case op.Request.MediaType == ir.MediaMultipart:
		body = append(body, jen.Id(dec).Op(":=").Qual(jsondecodeImport, "NewValues").Call())
		body = append(body, checks...)
		body = append(body, optionalBody(op.Request, multipartBody(req.Clone().Dot(ir.FieldBody)))...)
	case op.Request.Required:
		body = append(body, jen.Id(dec).Op(":=").Qual(jsondecodeImport, "New").Call(jen.Id("r").Dot("Body")))
		body = append(body, checks...)
		body = append(body, jsonBody(req.Clone().Dot(ir.FieldBody), op.Request.Type)...)
	default:
		// Without a body the parameters are still checked, by a Decoder
		// of values: a JSON one would want a JSON text.
		body = append(body,
			jen.Var().Id(dec).Op("*").Qual(jsondecodeImport, "Decoder"),
			jen.If(jen.Len(jen.Id("r").Dot("Body")).Op(">").Lit(0)).Block(
				jen.List(req.Clone().Dot(ir.FieldBody), jen.Id(dec)).Op("=").New(typeCode(op.Request.Type)).Op(",").Qual(jsondecodeImport, "New").Call(jen.Id("r").Dot("Body")),
			).Else().Block(
				jen.Id(dec).Op("=").Qual(jsondecodeImport, "NewValues").Call(),
			))
		body = append(body, checks...)
		body = append(body, jen.If(req.Clone().Dot(ir.FieldBody).Op("!=").Nil()).Block(jsonBody(req.Clone().Dot(ir.FieldBody), op.Request.Type)...))
	}
	if op.Request != nil || len(checks) > 0 {
		body = append(body, jen.If(jen.Err().Op(":=").Id(dec).Dot("Finish").Call(), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual(fmtImport, "Errorf").Call(jen.Lit("%w: %w"), jen.Qual(idemimplImport, "ErrInvalidBody"), jen.Err()))))
	}
	for _, p := range op.Params {
		if !p.FromCheck {
			body = append(body, jen.If(jen.Err().Op(":=").Add(paramDecode(p)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		}
	}
	body = append(body, jen.Return(req.Clone(), jen.Nil()))
	rParam := jen.Id("r")
	if op.Request == nil && len(op.Params) == 0 {
		rParam = jen.Id("_")
	}
	var parts []string
	if len(op.Params) > 0 {
		parts = append(parts, "parameters")
	}
	switch {
	case op.Request == nil:
	case op.Request.MediaType == ir.MediaForm:
		parts = append(parts, "form body")
	case op.Request.MediaType == ir.MediaMultipart:
		parts = append(parts, "multipart body")
	default:
		parts = append(parts, "JSON body")
	}
	what := "; it has no parameters and no body"
	if len(parts) > 0 {
		what = ", its " + strings.Join(parts, " and ") + " checked, every violation at once"
	}
	comment(f, fmt.Sprintf("%s decodes the typed request of %s%s.", op.DecodeFunc, op.Doc, what))
	f.Func().Id(op.DecodeFunc).Params(rParam.Op("*").Qual(idemimplImport, "Request")).Params(jen.Op("*").Id(op.RequestType), jen.Error()).Block(body...)
}

// optionalBody returns the statements that decode a body: as they are for
// a required one (the typed request already holds its value), else, when
// the request has a body, after allocating its value.
func optionalBody(b *ir.BodyType, decode []jen.Code) []jen.Code {
	if b.Required {
		return decode
	}
	alloc := jen.Id("req").Dot(ir.FieldBody).Op("=").New(typeCode(b.Type))
	return []jen.Code{jen.If(jen.Len(jen.Id("r").Dot("Body")).Op(">").Lit(0)).Block(append([]jen.Code{alloc}, decode...)...)}
}

// jsonBody returns the statements that decode the JSON body into ptr, a
// non-nil pointer to a value of type t, and check it.
func jsonBody(ptr *jen.Statement, t *ir.GoType) []jen.Code {
	if t.Kind == ir.TypeDeclared && t.Decl.Kind == ir.DeclStruct {
		return []jen.Code{ptr.Dot(ir.JSONMethod).Call(jen.Id(dec))}
	}
	return jsonValue(jen.Parens(jen.Op("*").Add(ptr)), t, false, 0)
}

// formBody returns the statements that decode a form body into ptr, a
// non-nil pointer to its struct, and check it.
func formBody(ptr *jen.Statement) []jen.Code {
	d := jen.Id(dec)
	return []jen.Code{
		jen.If(jen.List(jen.Id("values"), jen.Err()).Op(":=").Qual(urlImport, "ParseQuery").Call(jen.String().Call(jen.Id("r").Dot("Body"))), jen.Err().Op("!=").Nil()).Block(
			d.Clone().Dot("ViolateAt").Call(jen.Lit(""), jen.Lit("invalid form body: ").Op("+").Err().Dot("Error").Call()),
		).Else().If(jen.Err().Op(":=").Qual(formImport, "Decode").Call(jen.Id("values"), ptr.Clone()), jen.Err().Op("!=").Nil()).Block(
			jen.Qual(formImport, "Failures").Call(jen.Err(), d.Clone().Dot("ViolateAt")),
		).Else().Block(ptr.Clone().Dot(ir.FormCheckMethod).Call(d.Clone())),
	}
}

// multipartBody returns the statements that decode a multipart body into
// ptr, a non-nil pointer to its struct, and check it: a file part over its
// limit returns the 413 DecodeMultipart gives.
func multipartBody(ptr *jen.Statement) []jen.Code {
	d := jen.Id(dec)
	return []jen.Code{
		jen.If(jen.List(jen.Id("ok"), jen.Err()).Op(":=").Qual(idemimplImport, "DecodeMultipart").Call(jen.Id("r"), ptr.Clone(), d.Clone().Dot("ViolateAt")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		).Else().If(jen.Id("ok")).Block(ptr.Clone().Dot(ir.FormCheckMethod).Call(d.Clone())),
	}
}

// paramField is the field of the typed request req that holds parameter p.
func paramField(p ir.Param) *jen.Statement {
	if p.In == ir.InPath {
		return jen.Id("req").Dot(p.Field)
	}
	return jen.Id("req").Dot(ir.FieldParams).Dot(p.Field)
}

// paramDecode is the runtime call that decodes parameter p, which no
// check reads, into its field.
func paramDecode(p ir.Param) jen.Code {
	dst := jen.Op("&").Add(paramField(p))
	switch p.Type.Kind {
	case ir.TypePointer:
		return jen.Qual(idemimplImport, "OptionalParam").Call(jen.Id("r"), jen.Lit(p.In), jen.Lit(p.Name), dst)
	case ir.TypeSlice:
		return jen.Qual(idemimplImport, "ParamList").Call(jen.Id("r"), jen.Lit(p.In), jen.Lit(p.Name), jen.Lit(p.Required), dst)
	}
	return jen.Qual(idemimplImport, "Param").Call(jen.Id("r"), jen.Lit(p.In), jen.Lit(p.Name), jen.Lit(p.Required), dst)
}
