package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitCheckForm writes the method that checks a struct decoded from a form
// against its schema: the keywords the JSON decoder checks while reading
// (lengths, patterns, formats, bounds, multipleOf, enums, item and member
// counts, uniqueItems, and text PostgreSQL can hold), here over the typed
// value, each reported at the JSON pointer of its field.
func emitCheckForm(f *jen.File, t *ir.TypeDecl) {
	comment(f, ir.FormCheckMethod+" checks a "+t.Name+" decoded from a form against its schema, reporting every violation to d.")
	var body []jen.Code
	for _, fd := range t.Fields {
		if !formChecked(fd.Type) {
			continue
		}
		field := jen.Id("o").Dot(fd.Name)
		t := fd.Type
		var stmts []jen.Code
		if t.Kind == ir.TypeNullable {
			stmts = checkFormValue(field.Clone().Dot("Value"), t.Elem, 0)
		} else if t.Kind == ir.TypePointer {
			stmts = checkFormValue(jen.Op("*").Add(field.Clone()), t.Elem, 0)
			if t.Elem.Kind == ir.TypeDeclared && t.Elem.Decl.Kind == ir.DeclStruct {
				stmts = checkFormValue(field.Clone(), t.Elem, 0)
			}
		} else {
			stmts = checkFormValue(field.Clone(), t, 0)
		}
		block := append([]jen.Code{jen.Id(dec).Dot("Enter").Call(jen.Lit(fd.JSONName))}, stmts...)
		block = append(block, jen.Id(dec).Dot("Leave").Call())
		switch {
		case t.Kind == ir.TypeNullable:
			body = append(body, jen.If(field.Clone().Dot("Set").Op("&&").Op("!").Add(field.Clone()).Dot("Null")).Block(block...))
		case t.Kind == ir.TypePointer, !fd.Required && (t.Kind == ir.TypeSlice || t.Kind == ir.TypeMap):
			body = append(body, jen.If(field.Clone().Op("!=").Nil()).Block(block...))
		default:
			body = append(body, jen.Block(block...))
		}
	}
	f.Func().Params(jen.Id("o").Op("*").Id(t.Name)).Id(ir.FormCheckMethod).Params(jen.Id(dec).Op("*").Qual(jsondecodeImport, "Decoder")).Block(body...)
}

// formChecked reports whether a value of type t has anything to check.
func formChecked(t *ir.GoType) bool {
	switch t.Kind {
	case ir.TypeString:
		return true
	case ir.TypeInt32, ir.TypeInt64, ir.TypeFloat64:
		return t.Checks != nil
	case ir.TypeDeclared:
		return true
	case ir.TypePointer, ir.TypeNullable:
		return formChecked(t.Elem)
	case ir.TypeSlice, ir.TypeMap:
		return t.Checks != nil || formChecked(t.Elem)
	}
	return false
}

// checkFormValue returns the checks of x, a value of type t decoded from a
// form, at the place the Decoder is at. Nested values use variables of
// depth+1.
func checkFormValue(x *jen.Statement, t *ir.GoType, depth int) []jen.Code {
	d := jen.Id(dec)
	n := strconv.Itoa(depth)
	switch t.Kind {
	case ir.TypeString:
		return append([]jen.Code{d.Clone().Dot("Text").Call(x.Clone())}, scalarChecks(x, t)...)
	case ir.TypeInt32, ir.TypeInt64, ir.TypeFloat64:
		return scalarChecks(x, t)
	case ir.TypeDeclared:
		if t.Decl.Kind == ir.DeclStruct {
			return []jen.Code{x.Clone().Dot(ir.FormCheckMethod).Call(d.Clone())}
		}
		out := []jen.Code{d.Clone().Dot("Text").Call(jen.String().Call(x.Clone()))}
		if len(t.Decl.Consts) > 0 {
			cases := make([]jen.Code, len(t.Decl.Consts))
			for i, c := range t.Decl.Consts {
				cases[i] = jen.Id(c.Name)
			}
			out = append(out, jen.Switch(x.Clone()).Block(jen.Case(cases...), jen.Default().Add(d.Clone().Dot("NotOneOf").Call(jen.Lit(t.Decl.OneOf)))))
		}
		return out
	case ir.TypePointer:
		if !formChecked(t.Elem) {
			return nil
		}
		inner := checkFormValue(jen.Op("*").Add(x.Clone()), t.Elem, depth+1)
		if t.Elem.Kind == ir.TypeDeclared && t.Elem.Decl.Kind == ir.DeclStruct {
			inner = checkFormValue(x.Clone(), t.Elem, depth+1)
		}
		return []jen.Code{jen.If(x.Clone().Op("!=").Nil()).Block(inner...)}
	case ir.TypeSlice:
		out := countChecks(jen.Len(x.Clone()), t.Checks)
		i := jen.Id("i" + n)
		if t.Checks != nil && t.Checks.UniqueItems && comparableScalar(t.Elem) {
			seen, e := jen.Id("seen"+n), jen.Id("e"+n)
			out = append(out,
				seen.Clone().Op(":=").Make(jen.Map(typeCode(t.Elem)).Bool(), jen.Len(x.Clone())),
				jen.For(jen.List(i.Clone(), e.Clone()).Op(":=").Range().Add(x.Clone())).Block(
					jen.If(seen.Clone().Index(e.Clone())).Block(d.Clone().Dot("Repeated").Call(i.Clone())),
					seen.Clone().Index(e.Clone()).Op("=").True(),
				))
		} else if t.Checks != nil && t.Checks.UniqueItems {
			// Objects and arrays compare as JSON values do, by their
			// canonical form.
			out = append(out, d.Clone().Dot("UniqueEncoded").Call(jen.Len(x.Clone()),
				jen.Func().Params(jen.Id("i").Int()).Params(jen.Index().Byte(), jen.Error()).Block(
					jen.Return(jen.Qual(jsonImport, "Marshal").Call(x.Clone().Index(jen.Id("i")))))))
		}
		if formChecked(t.Elem) {
			loop := append([]jen.Code{d.Clone().Dot("EnterIndex").Call(i.Clone())}, checkFormValue(x.Clone().Index(i.Clone()), t.Elem, depth+1)...)
			loop = append(loop, d.Clone().Dot("Leave").Call())
			out = append(out, jen.For(i.Clone().Op(":=").Range().Add(x.Clone())).Block(loop...))
		}
		return out
	case ir.TypeMap:
		out := countChecks(jen.Len(x.Clone()), t.Checks)
		if formChecked(t.Elem) {
			k, e := jen.Id("k"+n), jen.Id("e"+n)
			loop := []jen.Code{
				d.Clone().Dot("Enter").Call(k.Clone()),
				d.Clone().Dot("Text").Call(k.Clone()),
				e.Clone().Op(":=").Add(x.Clone()).Index(k.Clone()),
			}
			loop = append(loop, checkFormValue(e.Clone(), t.Elem, depth+1)...)
			loop = append(loop, d.Clone().Dot("Leave").Call())
			out = append(out, jen.For(jen.List(jen.Id("_"), k.Clone()).Op(":=").Range().Qual("slices", "Sorted").Call(jen.Qual("maps", "Keys").Call(x.Clone()))).Block(loop...))
		}
		return out
	}
	return nil
}

// comparableScalar reports whether values of t compare with == as JSON
// Schema compares them for uniqueItems.
func comparableScalar(t *ir.GoType) bool {
	switch t.Kind {
	case ir.TypeString, ir.TypeInt32, ir.TypeInt64, ir.TypeFloat64, ir.TypeBool:
		return true
	case ir.TypeDeclared:
		return t.Decl.Kind == ir.DeclEnum
	}
	return false
}
