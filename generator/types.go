package generator

import (
	"strings"

	"github.com/dave/jennifer/jen"
)

// The import paths generated types refer to.
const (
	formImport = "github.com/idemgen/idemgen/runtime/form"
	jsonImport = "encoding/json"
	timeImport = "time"
)

// EmitTypes adds every declaration of plan to f: structs with json tags,
// enum string types with their constants, and a DecodeForm method on each
// struct a form body reaches. It makes no decisions; names, field order and
// pointers come from the plan.
func EmitTypes(f *jen.File, plan *TypePlan) {
	for _, d := range plan.Decls {
		switch d.Kind {
		case DeclStruct:
			emitStruct(f, d)
			if d.Form {
				emitDecodeForm(f, d)
			}
		case DeclEnum:
			emitEnum(f, d)
		}
	}
}

// Code returns the Go type expression of t, with Qual for every foreign
// name, for signatures that mention planned types.
func (t *GoType) Code() *jen.Statement {
	switch t.Kind {
	case TypeBool:
		return jen.Bool()
	case TypeInt32:
		return jen.Int32()
	case TypeInt64:
		return jen.Int64()
	case TypeFloat64:
		return jen.Float64()
	case TypeString:
		return jen.String()
	case TypeTime:
		return jen.Qual(timeImport, "Time")
	case TypeSlice:
		return jen.Index().Add(t.Elem.Code())
	case TypeMap:
		return jen.Map(jen.String()).Add(t.Elem.Code())
	case TypePointer:
		return jen.Op("*").Add(t.Elem.Code())
	case TypeDeclared:
		return jen.Id(t.Decl.Name)
	case TypeExternal:
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
func declDoc(d *TypeDecl) string {
	return d.Name + " is the " + strings.ReplaceAll(d.Source, "\n", " ") + "."
}

func emitStruct(f *jen.File, d *TypeDecl) {
	fields := make([]jen.Code, len(d.Fields))
	for i, fd := range d.Fields {
		tag := fd.JSONName
		if !fd.Required {
			tag += ",omitempty"
		}
		fields[i] = jen.Id(fd.Name).Add(fd.Type.Code()).Tag(map[string]string{"json": tag})
	}
	f.Comment(declDoc(d))
	f.Type().Id(d.Name).Struct(fields...)
}

func emitEnum(f *jen.File, d *TypeDecl) {
	f.Comment(declDoc(d))
	f.Type().Id(d.Name).String()
	if len(d.Consts) == 0 {
		return
	}
	consts := make([]jen.Code, len(d.Consts))
	for i, c := range d.Consts {
		consts[i] = jen.Id(c.Name).Id(d.Name).Op("=").Lit(c.Value)
	}
	f.Comment("The values of " + d.Name + ".")
	f.Const().Defs(consts...)
}

// emitDecodeForm writes the method that reads the struct from a form tree:
// one runtime/form call per field, with a decoder composed for its type.
func emitDecodeForm(f *jen.File, d *TypeDecl) {
	f.Comment("DecodeForm sets o from the form tree n, reporting the first key that does not fit; see form.Decode.")
	sig := f.Func().Params(jen.Id("o").Op("*").Id(d.Name)).Id(formMethod).Params(jen.Id("n").Op("*").Qual(formImport, "Node")).Error()
	if len(d.Fields) == 0 {
		sig.Block(jen.Return(jen.Nil()))
		return
	}
	body := []jen.Code{jen.Var().Id("err").Error()}
	for _, fd := range d.Fields {
		body = append(body, jen.If(
			jen.List(jen.Id("o").Dot(fd.Name), jen.Id("err")).Op("=").Add(fieldDecode(fd)),
			jen.Id("err").Op("!=").Nil(),
		).Block(jen.Return(jen.Id("err"))))
	}
	body = append(body, jen.Return(jen.Nil()))
	sig.Block(body...)
}

// fieldDecode is the runtime/form call that reads one field.
func fieldDecode(fd *StructField) *jen.Statement {
	name := jen.Lit(fd.JSONName)
	n := jen.Id("n")
	t := fd.Type
	switch {
	case t.Kind == TypePointer && !fd.Required:
		return jen.Qual(formImport, "Optional").Call(n, name, decoderCode(t.Elem))
	case fd.Required:
		return jen.Qual(formImport, "Required").Call(n, name, decoderCode(t))
	}
	return jen.Qual(formImport, "Omittable").Call(n, name, decoderCode(t))
}

// decoderCode is a runtime/form decoder function for t.
func decoderCode(t *GoType) *jen.Statement {
	switch t.Kind {
	case TypeBool:
		return jen.Qual(formImport, "Bool")
	case TypeInt32:
		return jen.Qual(formImport, "Int32")
	case TypeInt64:
		return jen.Qual(formImport, "Int64")
	case TypeFloat64:
		return jen.Qual(formImport, "Float64")
	case TypeString:
		return jen.Qual(formImport, "String")
	case TypeTime:
		return jen.Qual(formImport, "Time")
	case TypeSlice:
		return jen.Qual(formImport, "Slice").Call(decoderCode(t.Elem))
	case TypeMap:
		return jen.Qual(formImport, "Map").Call(decoderCode(t.Elem))
	case TypePointer:
		return jen.Qual(formImport, "Pointer").Call(decoderCode(t.Elem))
	case TypeDeclared:
		if t.Decl.Kind == DeclEnum {
			return jen.Qual(formImport, "Enum").Index(jen.Id(t.Decl.Name))
		}
		return jen.Qual(formImport, "Object").Index(jen.Id(t.Decl.Name))
	case TypeExternal:
		return jen.Qual(formImport, "JSON").Index(t.Code())
	}
	return jen.Qual(formImport, "Raw")
}
