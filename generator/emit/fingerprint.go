package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// fingerprintEmitter writes typed fingerprint walks. Values along the
// paths an exclude or unordered pointer can still reach are walked inline;
// everything else calls one shared walker per struct type, so recursive
// types stay finite.
// Its state is the file's own: which walkers the file needs, in the
// order it first needs them; their names come from the IR.
type fingerprintEmitter struct {
	queued map[*ir.TypeDecl]bool
	queue  []*ir.TypeDecl
}

func newFingerprintEmitter() *fingerprintEmitter {
	return &fingerprintEmitter{queued: map[*ir.TypeDecl]bool{}}
}

// writer is the name of the *fingerprint.Writer in generated code.
const writer = "w"

// body returns the statements that write the significant part of a request
// body as runtime/fingerprint selects it.
// ptr is a non-nil pointer to the body, of type *t.
func (e *fingerprintEmitter) body(ptr jen.Code, t *ir.GoType, fp ir.Fingerprint) []jen.Code {
	if len(fp.Include) == 0 {
		return e.pointee(ptr, t, relative(fp.Exclude), relative(fp.Unordered), 0)
	}
	// Selectors reach struct fields through the pointer; anything else is
	// dereferenced once.
	root := jen.Code(jen.Parens(jen.Op("*").Add(ptr)))
	if t.Kind == ir.TypeDeclared && t.Decl.Kind == ir.DeclStruct {
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
func (e *fingerprintEmitter) selected(expr jen.Code, t *ir.GoType, segs []string, ex, un relative, depth int) []jen.Code {
	if len(segs) == 0 {
		return e.value(expr, t, ex, un, depth)
	}
	s := segs[0]
	v := jen.Id("v" + strconv.Itoa(depth))
	switch t.Kind {
	case ir.TypePointer:
		x := jen.Id("x" + strconv.Itoa(depth))
		return []jen.Code{jen.If(jen.Add(expr).Op("!=").Nil()).Block(
			append([]jen.Code{jen.Add(x).Op(":=").Op("*").Add(expr)},
				e.selected(x, t.Elem, segs, ex, un, depth+1)...)...)}
	case ir.TypeSlice:
		i, _ := strconv.Atoi(s)
		return []jen.Code{jen.If(jen.Len(expr).Op(">").Lit(i)).Block(
			append([]jen.Code{jen.Add(v).Op(":=").Add(expr).Index(jen.Lit(i))},
				e.selected(v, t.Elem, segs[1:], ex, un, depth+1)...)...)}
	case ir.TypeMap:
		return []jen.Code{jen.If(jen.List(v, jen.Id("ok")).Op(":=").Add(expr).Index(jen.Lit(s)), jen.Id("ok")).Block(
			e.selected(v, t.Elem, segs[1:], ex, un, depth+1)...)}
	case ir.TypeNullable:
		return []jen.Code{jen.If(jen.Op("!").Add(expr).Dot("Null")).Block(
			e.selected(jen.Add(expr).Dot("Value"), t.Elem, segs, ex, un, depth)...)}
	case ir.TypeDeclared:
		if t.Decl.Kind != ir.DeclStruct {
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
// already holds: the field is present.
func (e *fingerprintEmitter) present(field jen.Code, t *ir.GoType, segs []string, ex, un relative, depth int) []jen.Code {
	switch {
	case t.Kind == ir.TypePointer && len(segs) == 0:
		return e.pointee(field, t.Elem, ex, un, depth)
	case t.Kind == ir.TypePointer && t.Elem.Kind == ir.TypeDeclared && t.Elem.Decl.Kind == ir.DeclStruct:
		return e.selected(field, t.Elem, segs, ex, un, depth)
	case t.Kind == ir.TypePointer:
		x := jen.Id("x" + strconv.Itoa(depth))
		return append([]jen.Code{jen.Add(x).Op(":=").Op("*").Add(field)}, e.selected(x, t.Elem, segs, ex, un, depth+1)...)
	case len(segs) == 0:
		return e.nonNil(field, t, ex, un, depth)
	}
	return e.selected(field, t, segs, ex, un, depth)
}

// presence is the condition under which encoding/json writes a field (an
// optional array or map is tagged omitzero: written when not nil, even
// empty, as the decoder keeps an empty one sent), or nil when it always
// does.
func presence(field *jen.Statement, f *ir.StructField) jen.Code {
	if f.Required {
		return nil
	}
	switch f.Type.Kind {
	case ir.TypePointer, ir.TypeSlice, ir.TypeMap:
		return jen.Add(field).Op("!=").Nil()
	case ir.TypeNullable:
		return jen.Add(field).Dot("Set")
	case ir.TypeRaw:
		return jen.Len(field).Op(">").Lit(0)
	}
	return nil
}

// value returns the statements that write expr, a value of type t, with
// the exclude and unordered pointers that can still match below it.
func (e *fingerprintEmitter) value(expr jen.Code, t *ir.GoType, ex, un relative, depth int) []jen.Code {
	w := jen.Id(writer)
	switch t.Kind {
	case ir.TypeBool:
		return []jen.Code{w.Dot("Bool").Call(expr)}
	case ir.TypeInt32:
		return []jen.Code{w.Dot("Int").Call(jen.Int64().Call(expr))}
	case ir.TypeInt64:
		return []jen.Code{w.Dot("Int").Call(expr)}
	case ir.TypeFloat64:
		return []jen.Code{w.Dot("Float").Call(expr)}
	case ir.TypeString:
		return []jen.Code{w.Dot("String").Call(expr)}
	case ir.TypeTime:
		return []jen.Code{w.Dot("String").Call(jen.Add(expr).Dot("Format").Call(jen.Qual(timeImport, "RFC3339Nano")))}
	case ir.TypeFile:
		// A file is fingerprinted, as it is encoded as JSON, by its digest.
		return []jen.Code{w.Dot("String").Call(jen.Add(expr).Dot("Digest").Call())}
	case ir.TypeRaw:
		return []jen.Code{jen.If(jen.Len(expr).Op("==").Lit(0)).Block(w.Clone().Dot("Null").Call()).
			Else().Block(e.nonNil(expr, t, ex, un, depth)...)}
	case ir.TypeExternal:
		return []jen.Code{w.Dot("Marshaled").Call(jen.Qual(jsonImport, "Marshal").Call(expr))}
	case ir.TypePointer:
		return []jen.Code{jen.If(jen.Add(expr).Op("==").Nil()).Block(jen.Id(writer).Dot("Null").Call()).
			Else().Block(e.pointee(expr, t.Elem, ex, un, depth)...)}
	case ir.TypeNullable:
		return []jen.Code{jen.If(jen.Add(expr).Dot("Null")).Block(jen.Id(writer).Dot("Null").Call()).
			Else().Block(e.value(jen.Add(expr).Dot("Value"), t.Elem, ex, un, depth)...)}
	case ir.TypeSlice, ir.TypeMap:
		return []jen.Code{jen.If(jen.Add(expr).Op("==").Nil()).Block(jen.Id(writer).Dot("Null").Call()).
			Else().Block(e.nonNil(expr, t, ex, un, depth)...)}
	case ir.TypeDeclared:
		if t.Decl.Kind == ir.DeclEnum {
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
func (e *fingerprintEmitter) pointee(ptr jen.Code, elem *ir.GoType, ex, un relative, depth int) []jen.Code {
	switch {
	case elem.Kind == ir.TypeDeclared && elem.Decl.Kind == ir.DeclStruct:
		if len(ex) == 0 && len(un) == 0 {
			return []jen.Code{jen.Id(e.walker(elem.Decl)).Call(jen.Id(writer), ptr)}
		}
		return e.structFields(ptr, elem.Decl, ex, un, depth)
	case elem.Kind == ir.TypeTime || elem.Kind == ir.TypeFile:
		return e.value(jen.Parens(jen.Op("*").Add(ptr)), elem, ex, un, depth)
	case elem.Kind == ir.TypeSlice || elem.Kind == ir.TypeMap || elem.Kind == ir.TypeRaw || elem.Kind == ir.TypePointer:
		x := jen.Id("x" + strconv.Itoa(depth))
		return append([]jen.Code{jen.Add(x).Op(":=").Op("*").Add(ptr)}, e.value(x, elem, ex, un, depth+1)...)
	}
	return e.value(jen.Op("*").Add(ptr), elem, ex, un, depth)
}

// nonNil returns the statements that write a slice, map or raw value known
// not to be nil, as encoding/json writes it.
func (e *fingerprintEmitter) nonNil(expr jen.Code, t *ir.GoType, ex, un relative, depth int) []jen.Code {
	switch t.Kind {
	case ir.TypeSlice:
		return e.slice(expr, t, ex, un, depth)
	case ir.TypeMap:
		return e.mapValue(expr, t, ex, un, depth)
	case ir.TypeRaw:
		return []jen.Code{jen.Id(writer).Dot("JSON").Call(expr)}
	}
	return e.value(expr, t, ex, un, depth)
}

// slice writes a non-nil slice.
func (e *fingerprintEmitter) slice(expr jen.Code, t *ir.GoType, ex, un relative, depth int) []jen.Code {
	begin, end := "BeginArray", "EndArray"
	if un.here() {
		begin, end = "BeginUnorderedArray", "EndUnorderedArray"
	}
	elem := jen.Id("e" + strconv.Itoa(depth))
	exElem, unElem := ex.member(ir.Wildcard), un.member(ir.Wildcard)
	loop := []jen.Code{jen.Id(writer).Dot(begin).Call()}
	if !exElem.here() {
		loop = append(loop, jen.For(jen.List(jen.Id("_"), elem).Op(":=").Range().Add(expr)).Block(
			e.value(elem, t.Elem, exElem, unElem, depth+1)...))
	}
	return append(loop, jen.Id(writer).Dot(end).Call())
}

// mapValue writes a non-nil map, members in canonical order.
func (e *fingerprintEmitter) mapValue(expr jen.Code, t *ir.GoType, ex, un relative, depth int) []jen.Code {
	d := strconv.Itoa(depth)
	keys, k, elem := jen.Id("keys"+d), jen.Id("k"+d), jen.Id("e"+d)
	exElem, unElem := ex.member(ir.Wildcard), un.member(ir.Wildcard)
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
func (e *fingerprintEmitter) structFields(expr jen.Code, d *ir.TypeDecl, ex, un relative, depth int) []jen.Code {
	stmts := []jen.Code{jen.Id(writer).Dot("BeginObject").Call()}
	for _, f := range d.Canonical {
		exF, unF := ex.member(f.JSONName), un.member(f.JSONName)
		if exF.here() {
			continue
		}
		field := jen.Add(expr).Dot(f.Name)
		if call := memberCall(field, f); call != nil {
			stmts = append(stmts, call)
			continue
		}
		write := []jen.Code{jen.Id(writer).Dot("Key").Call(jen.Lit(f.JSONName))}
		switch {
		case f.Required:
			write = append(write, e.value(field, f.Type, exF, unF, depth)...)
		case f.Type.Kind == ir.TypePointer:
			write = append(write, e.pointee(field, f.Type.Elem, exF, unF, depth)...)
		case f.Type.Kind == ir.TypeNullable:
			write = append(write, e.value(field, f.Type, exF, unF, depth)...)
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

// memberCall returns the one runtime call that writes a scalar or enum
// member, required or optional, name and value (Writer.MemberString,
// OptionalInt, …), or nil for a member of another type. The call writes
// what Key and the value's method would, so the fingerprint is the same;
// the generated walker is a call per member instead of a nil test, a Key
// and a value call.
func memberCall(field *jen.Statement, f *ir.StructField) jen.Code {
	w, name := jen.Id(writer), jen.Lit(f.JSONName)
	if f.Required {
		switch t := f.Type; {
		case t.Kind == ir.TypeString:
			return w.Dot("MemberString").Call(name, field)
		case t.Kind == ir.TypeDeclared && t.Decl.Kind == ir.DeclEnum:
			return w.Dot("MemberString").Call(name, jen.String().Call(field))
		case t.Kind == ir.TypeInt64:
			return w.Dot("MemberInt").Call(name, field)
		case t.Kind == ir.TypeInt32:
			return w.Dot("MemberInt").Call(name, jen.Int64().Call(field))
		case t.Kind == ir.TypeFloat64:
			return w.Dot("MemberFloat").Call(name, field)
		case t.Kind == ir.TypeBool:
			return w.Dot("MemberBool").Call(name, field)
		}
		return nil
	}
	if f.Type.Kind != ir.TypePointer {
		return nil
	}
	switch e := f.Type.Elem; {
	case e.Kind == ir.TypeString:
		return w.Dot("OptionalString").Call(name, field)
	case e.Kind == ir.TypeDeclared && e.Decl.Kind == ir.DeclEnum:
		return w.Dot("OptionalString").Call(name, jen.Parens(jen.Op("*").String()).Call(field))
	case e.Kind == ir.TypeInt64:
		return w.Dot("OptionalInt").Call(name, field)
	case e.Kind == ir.TypeInt32:
		return w.Dot("OptionalInt32").Call(name, field)
	case e.Kind == ir.TypeFloat64:
		return w.Dot("OptionalFloat").Call(name, field)
	case e.Kind == ir.TypeBool:
		return w.Dot("OptionalBool").Call(name, field)
	}
	return nil
}

// walker returns the name of the shared walker of a struct type, queueing
// it for emission the first time.
func (e *fingerprintEmitter) walker(d *ir.TypeDecl) string {
	if !e.queued[d] {
		e.queued[d] = true
		e.queue = append(e.queue, d)
	}
	return d.Walker
}

// emitWalkers declares every queued shared walker, including those the
// walkers themselves queue.
func (e *fingerprintEmitter) emitWalkers(f *jen.File) {
	for len(e.queue) > 0 {
		d := e.queue[0]
		e.queue = e.queue[1:]
		comment(f, d.Walker+" writes a "+d.Name+" value for a typed fingerprint, as runtime/fingerprint would canonicalise its JSON encoding.")
		f.Func().Id(d.Walker).Params(
			jen.Id(writer).Op("*").Qual(fingerprintImport, "Writer"),
			jen.Id("v").Op("*").Id(d.Name),
		).Block(e.structFields(jen.Id("v"), d, nil, nil, 0)...)
	}
}

// fieldByJSON returns the struct field with a JSON name, or nil.
func fieldByJSON(d *ir.TypeDecl, name string) *ir.StructField {
	for _, f := range d.Fields {
		if f.JSONName == name {
			return f
		}
	}
	return nil
}

// relative is the set of pointers still able to match at one node of the
// walk: each is the rest of a pointer below that node.
type relative [][]string

// here reports whether a pointer ends at this node.
func (r relative) here() bool {
	for _, p := range r {
		if len(p) == 0 {
			return true
		}
	}
	return false
}

// member returns the pointers that continue into the member or field name.
func (r relative) member(name string) relative {
	var out relative
	for _, p := range r {
		if len(p) > 0 && (p[0] == name || p[0] == ir.Wildcard) {
			out = append(out, p[1:])
		}
	}
	return out
}

// literalEnds returns the member names that end a pointer here, for
// excluding single map members.
func (r relative) literalEnds() []string {
	var out []string
	for _, p := range r {
		if len(p) == 1 && p[0] != ir.Wildcard {
			out = append(out, p[0])
		}
	}
	return out
}

// below returns the pointers relative to the value a path leads to: those
// that pass through it, and an empty pointer for those that end at or above
// it (the value is covered whole).
func below(ptrs [][]string, path []string) relative {
	var out relative
	for _, p := range ptrs {
		n := min(len(p), len(path))
		match := true
		for i := range n {
			if p[i] != path[i] && p[i] != ir.Wildcard {
				match = false
				break
			}
		}
		if match {
			out = append(out, p[n:])
		}
	}
	return out
}
