package generator

import (
	"slices"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// fingerprintImport is the runtime package generated fingerprints call.
const fingerprintImport = "github.com/idemgen/idemgen/runtime/fingerprint"

// sortIncludes orders include pointers as the runtime orders object
// members, since they become the members of the include object.
func sortIncludes(in []IncludePointer) {
	names := make([]string, len(in))
	for i, p := range in {
		names[i] = p.Pointer
	}
	order := fingerprint.SortKeys(names)
	slices.SortStableFunc(in, func(a, b IncludePointer) int {
		return slices.Index(order, a.Pointer) - slices.Index(order, b.Pointer)
	})
}

// fingerprintEmitter writes typed fingerprint walks. Values along the
// paths an exclude or unordered pointer can still reach are walked inline;
// everything else calls one shared walker per struct type, so recursive
// types stay finite.
type fingerprintEmitter struct {
	names   *Namespace
	walkers map[*TypeDecl]string
	queue   []*TypeDecl
}

func newFingerprintEmitter(names *Namespace) *fingerprintEmitter {
	return &fingerprintEmitter{names: names, walkers: map[*TypeDecl]string{}}
}

// writer is the name of the *fingerprint.Writer in generated code.
const writer = "w"

// body returns the statements that write the significant part of a request
// body as runtime/fingerprint selects it.
// ptr is a non-nil pointer to the body, of type *t.
func (e *fingerprintEmitter) body(ptr jen.Code, t *GoType, fp *FingerprintPlan) []jen.Code {
	if len(fp.Include) == 0 {
		return e.pointee(ptr, t, relative(fp.Exclude), relative(fp.Unordered), 0)
	}
	// Selectors reach struct fields through the pointer; anything else is
	// dereferenced once.
	root := jen.Code(jen.Parens(jen.Op("*").Add(ptr)))
	if t.Kind == TypeDeclared && t.Decl.Kind == DeclStruct {
		root = ptr
	}
	stmts := []jen.Code{jen.Id(writer).Dot("BeginObject").Call()}
	for _, inc := range fp.Include {
		stmts = append(stmts,
			jen.Id(writer).Dot("Key").Call(jen.Lit(inc.Pointer)),
			jen.Id(writer).Dot("BeginArray").Call())
		ex := below(fp.Exclude, inc.Segments)
		if !ex.here() {
			stmts = append(stmts, e.selected(root, t, inc.Segments, ex, below(fp.Unordered, inc.Segments), 0)...)
		}
		stmts = append(stmts, jen.Id(writer).Dot("EndArray").Call())
	}
	return append(stmts, jen.Id(writer).Dot("EndObject").Call())
}

// selected returns the statements that write the value at segs below expr
// when it is present, and nothing when it is not.
func (e *fingerprintEmitter) selected(expr jen.Code, t *GoType, segs []string, ex, un relative, depth int) []jen.Code {
	if len(segs) == 0 {
		return e.value(expr, t, ex, un, depth)
	}
	s := segs[0]
	v := jen.Id("v" + strconv.Itoa(depth))
	switch t.Kind {
	case TypePointer:
		x := jen.Id("x" + strconv.Itoa(depth))
		return []jen.Code{jen.If(jen.Add(expr).Op("!=").Nil()).Block(
			append([]jen.Code{jen.Add(x).Op(":=").Op("*").Add(expr)},
				e.selected(x, t.Elem, segs, ex, un, depth+1)...)...)}
	case TypeSlice:
		i, _ := strconv.Atoi(s)
		return []jen.Code{jen.If(jen.Len(expr).Op(">").Lit(i)).Block(
			append([]jen.Code{jen.Add(v).Op(":=").Add(expr).Index(jen.Lit(i))},
				e.selected(v, t.Elem, segs[1:], ex, un, depth+1)...)...)}
	case TypeMap:
		return []jen.Code{jen.If(jen.List(v, jen.Id("ok")).Op(":=").Add(expr).Index(jen.Lit(s)), jen.Id("ok")).Block(
			e.selected(v, t.Elem, segs[1:], ex, un, depth+1)...)}
	case TypeDeclared:
		if t.Decl.Kind != DeclStruct {
			return nil
		}
		f := fieldByJSON(t.Decl, s)
		if f == nil {
			return nil
		}
		field := jen.Add(expr).Dot(f.Name)
		cond := presence(field, f)
		if cond == nil {
			return e.selected(field, f.Type, segs[1:], ex, un, depth)
		}
		return []jen.Code{jen.If(cond).Block(e.present(field, f.Type, segs[1:], ex, un, depth)...)}
	}
	return nil
}

// present is selected for an optional field whose presence condition
// already holds: the field is not nil, nor empty.
func (e *fingerprintEmitter) present(field jen.Code, t *GoType, segs []string, ex, un relative, depth int) []jen.Code {
	switch {
	case t.Kind == TypePointer && len(segs) == 0:
		return e.pointee(field, t.Elem, ex, un, depth)
	case t.Kind == TypePointer && t.Elem.Kind == TypeDeclared && t.Elem.Decl.Kind == DeclStruct:
		return e.selected(field, t.Elem, segs, ex, un, depth)
	case t.Kind == TypePointer:
		x := jen.Id("x" + strconv.Itoa(depth))
		return append([]jen.Code{jen.Add(x).Op(":=").Op("*").Add(field)}, e.selected(x, t.Elem, segs, ex, un, depth+1)...)
	case len(segs) == 0:
		return e.nonNil(field, t, ex, un, depth)
	}
	return e.selected(field, t, segs, ex, un, depth)
}

// presence is the condition under which encoding/json writes a field, or
// nil when it always does.
func presence(field *jen.Statement, f *StructField) jen.Code {
	if f.Required {
		return nil
	}
	switch f.Type.Kind {
	case TypePointer:
		return jen.Add(field).Op("!=").Nil()
	case TypeSlice, TypeMap, TypeRaw:
		return jen.Len(field).Op(">").Lit(0)
	}
	return nil
}

// value returns the statements that write expr, a value of type t, with
// the exclude and unordered pointers that can still match below it.
func (e *fingerprintEmitter) value(expr jen.Code, t *GoType, ex, un relative, depth int) []jen.Code {
	w := jen.Id(writer)
	switch t.Kind {
	case TypeBool:
		return []jen.Code{w.Dot("Bool").Call(expr)}
	case TypeInt32:
		return []jen.Code{w.Dot("Int").Call(jen.Int64().Call(expr))}
	case TypeInt64:
		return []jen.Code{w.Dot("Int").Call(expr)}
	case TypeFloat64:
		return []jen.Code{w.Dot("Float").Call(expr)}
	case TypeString:
		return []jen.Code{w.Dot("String").Call(expr)}
	case TypeTime:
		return []jen.Code{w.Dot("String").Call(jen.Add(expr).Dot("Format").Call(jen.Qual(timeImport, "RFC3339Nano")))}
	case TypeRaw:
		return []jen.Code{jen.If(jen.Len(expr).Op("==").Lit(0)).Block(w.Clone().Dot("Null").Call()).
			Else().Block(e.nonNil(expr, t, ex, un, depth)...)}
	case TypeExternal:
		return []jen.Code{w.Dot("Marshaled").Call(jen.Qual(jsonImport, "Marshal").Call(expr))}
	case TypePointer:
		return []jen.Code{jen.If(jen.Add(expr).Op("==").Nil()).Block(jen.Id(writer).Dot("Null").Call()).
			Else().Block(e.pointee(expr, t.Elem, ex, un, depth)...)}
	case TypeSlice, TypeMap:
		return []jen.Code{jen.If(jen.Add(expr).Op("==").Nil()).Block(jen.Id(writer).Dot("Null").Call()).
			Else().Block(e.nonNil(expr, t, ex, un, depth)...)}
	case TypeDeclared:
		if t.Decl.Kind == DeclEnum {
			return []jen.Code{w.Dot("String").Call(jen.String().Call(expr))}
		}
		if len(ex) == 0 && len(un) == 0 {
			return []jen.Code{jen.Id(e.walker(t.Decl)).Call(jen.Id(writer), jen.Op("&").Add(expr))}
		}
		return e.structFields(expr, t.Decl, ex, un, depth)
	}
	return nil
}

// pointee returns the statements that write the value a non-nil pointer
// ptr points at. Struct pointers are walked as they are (selectors
// dereference them), scalars are dereferenced in place, and anything that
// is indexed or ranged over is first bound to a local.
func (e *fingerprintEmitter) pointee(ptr jen.Code, elem *GoType, ex, un relative, depth int) []jen.Code {
	switch {
	case elem.Kind == TypeDeclared && elem.Decl.Kind == DeclStruct:
		if len(ex) == 0 && len(un) == 0 {
			return []jen.Code{jen.Id(e.walker(elem.Decl)).Call(jen.Id(writer), ptr)}
		}
		return e.structFields(ptr, elem.Decl, ex, un, depth)
	case elem.Kind == TypeTime:
		return e.value(jen.Parens(jen.Op("*").Add(ptr)), elem, ex, un, depth)
	case elem.Kind == TypeSlice || elem.Kind == TypeMap || elem.Kind == TypeRaw || elem.Kind == TypePointer:
		x := jen.Id("x" + strconv.Itoa(depth))
		return append([]jen.Code{jen.Add(x).Op(":=").Op("*").Add(ptr)}, e.value(x, elem, ex, un, depth+1)...)
	}
	return e.value(jen.Op("*").Add(ptr), elem, ex, un, depth)
}

// nonNil returns the statements that write a slice, map or raw value known
// not to be nil, as encoding/json writes it.
func (e *fingerprintEmitter) nonNil(expr jen.Code, t *GoType, ex, un relative, depth int) []jen.Code {
	switch t.Kind {
	case TypeSlice:
		return e.slice(expr, t, ex, un, depth)
	case TypeMap:
		return e.mapValue(expr, t, ex, un, depth)
	case TypeRaw:
		return []jen.Code{jen.Id(writer).Dot("JSON").Call(expr)}
	}
	return e.value(expr, t, ex, un, depth)
}

// slice writes a non-nil slice.
func (e *fingerprintEmitter) slice(expr jen.Code, t *GoType, ex, un relative, depth int) []jen.Code {
	begin, end := "BeginArray", "EndArray"
	if un.here() {
		begin, end = "BeginUnorderedArray", "EndUnorderedArray"
	}
	elem := jen.Id("e" + strconv.Itoa(depth))
	exElem, unElem := ex.member(wildcard), un.member(wildcard)
	loop := []jen.Code{jen.Id(writer).Dot(begin).Call()}
	if !exElem.here() {
		loop = append(loop, jen.For(jen.List(jen.Id("_"), elem).Op(":=").Range().Add(expr)).Block(
			e.value(elem, t.Elem, exElem, unElem, depth+1)...))
	}
	return append(loop, jen.Id(writer).Dot(end).Call())
}

// mapValue writes a non-nil map, members in canonical order.
func (e *fingerprintEmitter) mapValue(expr jen.Code, t *GoType, ex, un relative, depth int) []jen.Code {
	d := strconv.Itoa(depth)
	keys, k, elem := jen.Id("keys"+d), jen.Id("k"+d), jen.Id("e"+d)
	exElem, unElem := ex.member(wildcard), un.member(wildcard)
	body := []jen.Code{
		jen.Add(keys).Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Len(expr)),
		jen.For(k).Op(":=").Range().Add(expr).Block(jen.Add(keys).Op("=").Append(keys, k)),
		jen.Id(writer).Dot("BeginObject").Call(),
	}
	if !exElem.here() {
		var each []jen.Code
		for _, name := range ex.literalEnds() {
			each = append(each, jen.If(jen.Add(k).Op("==").Lit(name)).Block(jen.Continue()))
		}
		each = append(each,
			jen.Id(writer).Dot("Key").Call(k),
			jen.Add(elem).Op(":=").Add(expr).Index(k))
		each = append(each, e.value(elem, t.Elem, exElem, unElem, depth+1)...)
		body = append(body, jen.For(jen.List(jen.Id("_"), k).Op(":=").Range().Qual(fingerprintImport, "SortKeys").Call(keys)).Block(each...))
	}
	return append(body, jen.Id(writer).Dot("EndObject").Call())
}

// structFields returns the statements that write a struct's members in
// canonical order, skipping excluded ones and those encoding/json omits.
func (e *fingerprintEmitter) structFields(expr jen.Code, d *TypeDecl, ex, un relative, depth int) []jen.Code {
	stmts := []jen.Code{jen.Id(writer).Dot("BeginObject").Call()}
	for _, f := range canonicalFields(d) {
		exF, unF := ex.member(f.JSONName), un.member(f.JSONName)
		if exF.here() {
			continue
		}
		field := jen.Add(expr).Dot(f.Name)
		write := []jen.Code{jen.Id(writer).Dot("Key").Call(jen.Lit(f.JSONName))}
		switch {
		case f.Required:
			write = append(write, e.value(field, f.Type, exF, unF, depth)...)
		case f.Type.Kind == TypePointer:
			write = append(write, e.pointee(field, f.Type.Elem, exF, unF, depth)...)
		default:
			write = append(write, e.nonNil(field, f.Type, exF, unF, depth)...)
		}
		if cond := presence(field, f); cond != nil {
			stmts = append(stmts, jen.If(cond).Block(write...))
		} else {
			stmts = append(stmts, write...)
		}
	}
	return append(stmts, jen.Id(writer).Dot("EndObject").Call())
}

// canonicalFields returns a struct's fields in the order RFC 8785 sorts
// their JSON names.
func canonicalFields(d *TypeDecl) []*StructField {
	names := make([]string, len(d.Fields))
	for i, f := range d.Fields {
		names[i] = f.JSONName
	}
	out := make([]*StructField, 0, len(d.Fields))
	for _, n := range fingerprint.SortKeys(names) {
		out = append(out, fieldByJSON(d, n))
	}
	return out
}

// walker returns the name of the shared walker of a struct type, queueing
// it for emission the first time.
func (e *fingerprintEmitter) walker(d *TypeDecl) string {
	if name, ok := e.walkers[d]; ok {
		return name
	}
	name := e.names.Unique("fingerprint"+d.Name, "fingerprint walker of "+d.Name, d.Pos)
	e.walkers[d] = name
	e.queue = append(e.queue, d)
	return name
}

// emitWalkers declares every queued shared walker, including those the
// walkers themselves queue.
func (e *fingerprintEmitter) emitWalkers(f *jen.File) {
	for len(e.queue) > 0 {
		d := e.queue[0]
		e.queue = e.queue[1:]
		f.Commentf("%s writes a %s value for a typed fingerprint, as runtime/fingerprint would canonicalise its JSON encoding.", e.walkers[d], d.Name)
		f.Func().Id(e.walkers[d]).Params(
			jen.Id(writer).Op("*").Qual(fingerprintImport, "Writer"),
			jen.Id("v").Op("*").Id(d.Name),
		).Block(e.structFields(jen.Id("v"), d, nil, nil, 0)...)
	}
}
