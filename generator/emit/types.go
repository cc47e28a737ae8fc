package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitDecoders adds the methods of every declaration to f: a decodeJSON
// method on each type a JSON body reaches, and DecodeForm and checkForm
// methods on each struct a form body reaches. It makes no decisions; the
// declarations themselves are the types file's (declarations).
func emitDecoders(f *jen.File, decls []*ir.TypeDecl) {
	for _, d := range decls {
		if d.Kind == ir.DeclStruct && d.Form {
			emitDecodeForm(f, d)
			emitCheckForm(f, d)
		}
		if d.JSON {
			emitDecodeJSON(f, d)
		}
	}
}

// typeCode returns the Go type expression of t, with Qual for every foreign
// name, for signatures that mention planned types.
func typeCode(t *ir.GoType) *jen.Statement {
	switch t.Kind {
	case ir.TypeBool:
		return jen.Bool()
	case ir.TypeInt32:
		return jen.Int32()
	case ir.TypeInt64:
		return jen.Int64()
	case ir.TypeFloat64:
		return jen.Float64()
	case ir.TypeString:
		return jen.String()
	case ir.TypeTime:
		return jen.Qual(timeImport, "Time")
	case ir.TypeSlice:
		return jen.Index().Add(typeCode(t.Elem))
	case ir.TypeMap:
		return jen.Map(jen.String()).Add(typeCode(t.Elem))
	case ir.TypePointer:
		return jen.Op("*").Add(typeCode(t.Elem))
	case ir.TypeNullable:
		return jen.Qual(idemImport, "Nullable").Types(typeCode(t.Elem))
	case ir.TypeDeclared:
		return jen.Id(t.Decl.Name)
	case ir.TypeFile:
		return jen.Qual(formImport, "File")
	case ir.TypeExternal:
		if t.External.Path == "" {
			return jen.Id(t.External.Name)
		}
		return jen.Qual(t.External.Path, t.External.Name)
	}
	return jen.Qual(jsonImport, "RawMessage")
}

// declDoc is the sentence after a declaration's name in its doc comment:
// the schema it comes from, which for an operation's own schemas names the
// operationId and METHOD /path.
func declDoc(d *ir.TypeDecl) string {
	return d.Name + " is the " + d.Source + "."
}

// emitDecodeForm writes the method that reads the struct from a form tree.
// It is plain glue over runtime/form, one block per field, with no generic
// calls: generic helpers instantiated for each struct made Stripe's
// package take half a minute to compile.
func emitDecodeForm(f *jen.File, d *ir.TypeDecl) {
	comment(f, "DecodeForm sets o from the form tree n, reporting every key that does not fit, joined; see form.Decode.")
	body := []jen.Code{
		jen.If(jen.Err().Op(":=").Qual(formImport, "Object").Call(jen.Id("n")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Var().Id("errs").Index().Error(),
	}
	if d.Strict { // additionalProperties: false
		names := []jen.Code{jen.Id("n")}
		for _, fd := range d.Fields {
			names = append(names, jen.Lit(fd.JSONName))
		}
		body = append(body, jen.If(jen.Err().Op(":=").Qual(formImport, "Only").Call(names...), jen.Err().Op("!=").Nil()).Block(collectErr(jen.Err())))
	}
	for _, fd := range d.Fields {
		body = append(body, fieldDecode(fd))
	}
	if c := d.Checks; c != nil && (c.MinProperties != nil || c.MaxProperties != nil) {
		// After the fields, as a JSON body's count is checked after its
		// members: a missing required key is the first error.
		lo, hi := 0, -1
		if c.MinProperties != nil {
			lo = *c.MinProperties
		}
		if c.MaxProperties != nil {
			hi = *c.MaxProperties
		}
		body = append(body, jen.If(jen.Err().Op(":=").Qual(formImport, "Properties").Call(jen.Id("n"), jen.Lit(lo), jen.Lit(hi)), jen.Err().Op("!=").Nil()).Block(collectErr(jen.Err())))
	}
	body = append(body, jen.Return(jen.Qual("errors", "Join").Call(jen.Id("errs").Op("..."))))
	f.Func().Params(jen.Id("o").Op("*").Id(d.Name)).Id(ir.FormMethod).Params(jen.Id("n").Op("*").Qual(formImport, "Node")).Error().Block(body...)
}

// collectErr is the statement that keeps the failure err in errs and goes
// on, so that DecodeForm reports every key that does not fit; the value
// read is then the zero value, and unused, as the form is refused.
func collectErr(err jen.Code) jen.Code {
	return jen.Id("errs").Op("=").Append(jen.Id("errs"), err)
}

// fieldDecode is the block that reads one field: decode the child into v0
// when the form has the key, and report it when it is required and absent.
func fieldDecode(fd *ir.StructField) jen.Code {
	t, val := fd.Type, jen.Code(jen.Id("v0"))
	switch t.Kind {
	case ir.TypePointer:
		t, val = t.Elem, jen.Op("&").Id("v0")
	case ir.TypeNullable:
		// A form has no null: a key given is a value.
		val = typeCode(t).Values(jen.Dict{jen.Id("Value"): jen.Id("v0"), jen.Id("Set"): jen.True()})
		t = t.Elem
	}
	stmts := append(decodeValue(t, 0), jen.Id("o").Dot(fd.Name).Op("=").Add(val))
	get := jen.If(jen.Id("c").Op(":=").Id("n").Dot("Get").Call(jen.Lit(fd.JSONName)), jen.Id("c").Op("!=").Nil()).Block(stmts...)
	if !fd.Required {
		return get
	}
	return get.Else().Block(collectErr(jen.Qual(formImport, "Missing").Call(jen.Id("n"), jen.Lit(fd.JSONName))))
}

// decodeValue returns the statements that decode the node c into a new
// variable v<depth> of type t. Nested arrays and maps loop with c rebound
// to each element and use the variables of depth+1.
func decodeValue(t *ir.GoType, depth int) []jen.Code {
	d := strconv.Itoa(depth)
	v, next := jen.Id("v"+d), "v"+strconv.Itoa(depth+1)
	c := jen.Id("c")
	checkErr := jen.If(jen.Err().Op("!=").Nil()).Block(collectErr(jen.Err()))
	leaf := func(call *jen.Statement) []jen.Code {
		return []jen.Code{jen.List(v, jen.Err()).Op(":=").Add(call), checkErr}
	}
	switch t.Kind {
	case ir.TypeBool:
		return leaf(jen.Qual(formImport, "Bool").Call(c))
	case ir.TypeInt32:
		return leaf(jen.Qual(formImport, "Int32").Call(c))
	case ir.TypeInt64:
		return leaf(jen.Qual(formImport, "Int64").Call(c))
	case ir.TypeFloat64:
		return leaf(jen.Qual(formImport, "Float64").Call(c))
	case ir.TypeString:
		return leaf(jen.Qual(formImport, "String").Call(c))
	case ir.TypeTime:
		return leaf(jen.Qual(formImport, "Time").Call(c))
	case ir.TypeRaw:
		return leaf(jen.Qual(formImport, "Raw").Call(c))
	case ir.TypeFile:
		max := -1
		if t.Checks != nil && t.Checks.MaxLength != nil {
			max = *t.Checks.MaxLength
		}
		return leaf(jen.Qual(formImport, "Upload").Call(c, jen.Lit(max)))
	case ir.TypeExternal:
		return leaf(jen.Qual(formImport, "JSON").Index(typeCode(t)).Call(c))
	case ir.TypePointer:
		return append(decodeValue(t.Elem, depth+1), v.Clone().Op(":=").Op("&").Id(next))
	case ir.TypeDeclared:
		if t.Decl.Kind == ir.DeclEnum {
			s := jen.Id("s" + d)
			return []jen.Code{
				jen.List(s, jen.Err()).Op(":=").Qual(formImport, "String").Call(c), checkErr,
				v.Clone().Op(":=").Id(t.Decl.Name).Call(s.Clone()),
			}
		}
		return []jen.Code{
			jen.Var().Add(v).Id(t.Decl.Name),
			jen.If(jen.Err().Op(":=").Add(v.Clone()).Dot(ir.FormMethod).Call(c), jen.Err().Op("!=").Nil()).Block(collectErr(jen.Err())),
		}
	case ir.TypeSlice:
		e, i := jen.Id("e"+d), jen.Id("i"+d)
		loop := append(decodeValue(t.Elem, depth+1), v.Clone().Index(i.Clone()).Op("=").Id(next))
		return []jen.Code{
			jen.List(e, jen.Err()).Op(":=").Add(c).Dot("Elems").Call(), checkErr,
			v.Clone().Op(":=").Make(typeCode(t), jen.Len(e.Clone())),
			jen.For(jen.List(i, c.Clone()).Op(":=").Range().Add(e.Clone())).Block(loop...),
		}
	case ir.TypeMap:
		k, key := jen.Id("k"+d), jen.Id("k")
		loop := append([]jen.Code{c.Clone().Op(":=").Add(c.Clone()).Dot("Get").Call(key)}, decodeValue(t.Elem, depth+1)...)
		loop = append(loop, v.Clone().Index(key.Clone()).Op("=").Id(next))
		return []jen.Code{
			jen.List(k, jen.Err()).Op(":=").Qual(formImport, "Members").Call(c), checkErr,
			v.Clone().Op(":=").Make(typeCode(t), jen.Len(k.Clone())),
			jen.For(jen.List(jen.Id("_"), key).Op(":=").Range().Add(k.Clone())).Block(loop...),
		}
	}
	panic("emit: no form decoding for type kind " + strconv.Itoa(int(t.Kind)))
}
