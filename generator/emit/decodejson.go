package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// dec is the runtime/jsondecode Decoder generated decoders read from.
const dec = "d"

// emitPatterns declares the compiled patterns the decoders check, once per
// package.
func emitPatterns(f *jen.File, patterns []*ir.Pattern) {
	if len(patterns) == 0 {
		return
	}
	defs := make([]jen.Code, len(patterns))
	for i, p := range patterns {
		defs[i] = jen.Id(p.Var).Op("=").Qual(regexpImport, "MustCompile").Call(jen.Lit(p.Source))
	}
	comment(f, "The patterns of the request schemas, compiled once.")
	f.Var().Defs(defs...)
}

// emitDecodeJSON writes the method that decodes a declared type from a
// runtime/jsondecode Decoder and checks its schema: plain glue, one case
// per field, every decision taken by the planner.
func emitDecodeJSON(f *jen.File, t *ir.TypeDecl) {
	d := jen.Id(dec)
	recv := jen.Id("v").Op("*").Id(t.Name)
	param := jen.Id(dec).Op("*").Qual(jsondecodeImport, "Decoder")
	comment(f, ir.JSONMethod+" decodes a "+t.Name+" from d and checks it against its schema, reporting every violation to d.")
	if t.Kind == ir.DeclEnum {
		read := d.Clone().Dot("String").Call()
		if t.Values != "" {
			read = d.Clone().Dot("Enum").Call(jen.Id(t.Values))
		}
		f.Func().Params(recv).Id(ir.JSONMethod).Params(param).Block(jen.Op("*").Id("v").Op("=").Id(t.Name).Call(read))
		return
	}
	body := []jen.Code{jen.If(jen.Op("!").Add(d.Clone()).Dot("BeginObject").Call()).Block(jen.Return())}
	counted := t.Checks != nil && (t.Checks.MinProperties != nil || t.Checks.MaxProperties != nil)
	if counted {
		body = append(body, jen.Id("n").Op(":=").Lit(0))
	}
	// Which required members were seen is one bit each in uint64 words:
	// separate flags were each reloaded in every case of the switch.
	bit := map[int]int{}
	for i, fd := range t.Fields {
		if fd.Required {
			bit[i] = len(bit)
		}
	}
	var words []jen.Code
	for w := 0; w*64 < len(bit); w++ {
		words = append(words, jen.Id("has"+strconv.Itoa(w)))
	}
	if len(words) > 0 {
		body = append(body, jen.Var().List(words...).Uint64())
	}
	word := func(i int) *jen.Statement { return jen.Id("has" + strconv.Itoa(bit[i]/64)) }
	mask := func(i int) *jen.Statement { return jen.Lit(1).Op("<<").Lit(bit[i] % 64) }
	other := d.Clone().Dot("Skip").Call()
	if t.Strict {
		other = d.Clone().Dot("Unknown").Call()
	}
	var loop []jen.Code
	if counted {
		loop = append(loop, jen.Id("n").Op("++"))
	}
	if len(t.Fields) == 0 {
		loop = append(loop, other)
	} else {
		// The member's name is looked up in the table of names by the
		// runtime, and the switch is on its index: a jump table instead
		// of string comparisons in every struct's decoder.
		at := make([]int, len(t.Fields))
		for k, i := range t.MemberOrder {
			at[i] = k
		}
		var cases []jen.Code
		for i, fd := range t.Fields {
			var stmts []jen.Code
			if fd.Required {
				stmts = append(stmts, word(i).Op("|=").Add(mask(i)))
			}
			stmts = append(stmts, jsonValue(jen.Id("v").Dot(fd.Name), fd.Type, fd.Nullable, 0)...)
			cases = append(cases, jen.Case(jen.Lit(at[i])).Block(stmts...))
		}
		cases = append(cases, jen.Default().Block(other))
		loop = append(loop, jen.Switch(d.Clone().Dot("Field").Call(jen.Id(t.Members))).Block(cases...))
	}
	body = append(body, jen.For(d.Clone().Dot("Member").Call()).Block(loop...))
	for i, fd := range t.Fields {
		if fd.Required {
			body = append(body, jen.If(word(i).Op("&").Parens(mask(i)).Op("==").Lit(0)).Block(d.Clone().Dot("Missing").Call(jen.Lit(fd.JSONName))))
		}
	}
	if counted {
		body = append(body, countChecks(jen.Id("n"), t.Checks)...)
	}
	f.Func().Params(recv).Id(ir.JSONMethod).Params(param).Block(body...)
}

// jsonValue returns the statements that decode the next value into lv, of
// type t, and check it; nullable says whether null is allowed (a pointer,
// slice or map becomes nil). Nested values use variables of depth+1.
func jsonValue(lv *jen.Statement, t *ir.GoType, nullable bool, depth int) []jen.Code {
	return jsonValueOp(lv, "=", t, nullable, depth)
}

// scalar reports whether t is read by one call, so that a new variable of
// it is declared by assigning that call.
func scalar(t *ir.GoType) bool {
	switch t.Kind {
	case ir.TypeString, ir.TypeInt32, ir.TypeInt64, ir.TypeFloat64, ir.TypeBool, ir.TypeTime, ir.TypeRaw:
		return true
	}
	return false
}

// newValue declares the variable x of type t and decodes the next value
// into it.
func newValue(x *jen.Statement, t *ir.GoType, depth int) []jen.Code {
	if scalar(t) {
		return jsonValueOp(x, ":=", t, false, depth)
	}
	return append([]jen.Code{jen.Var().Add(x.Clone()).Add(typeCode(t))}, jsonValue(x, t, t.Kind == ir.TypePointer, depth)...)
}

// jsonValueOp is jsonValue with the assignment operator of a scalar's
// read: = or :=.
func jsonValueOp(lv *jen.Statement, op string, t *ir.GoType, nullable bool, depth int) []jen.Code {
	d := jen.Id(dec)
	n := strconv.Itoa(depth)
	orNull := func(stmts []jen.Code) []jen.Code {
		if !nullable {
			return stmts
		}
		return []jen.Code{jen.If(d.Clone().Dot("IsNull").Call()).Block(lv.Clone().Op("=").Nil()).Else().Block(stmts...)}
	}
	switch t.Kind {
	case ir.TypeString:
		if op == "=" && depth == 0 {
			// A field of the struct being decoded: the runtime stores it.
			return append([]jen.Code{d.Clone().Dot("StringTo").Call(jen.Op("&").Add(lv.Clone()))}, scalarChecks(lv, t)...)
		}
		return append([]jen.Code{lv.Clone().Op(op).Add(d.Clone().Dot("String").Call())}, scalarChecks(lv, t)...)
	case ir.TypeInt32:
		return append([]jen.Code{lv.Clone().Op(op).Int32().Call(d.Clone().Dot("Int").Call(jen.Qual(mathImport, "MinInt32"), jen.Qual(mathImport, "MaxInt32")))}, scalarChecks(lv, t)...)
	case ir.TypeInt64:
		return append([]jen.Code{lv.Clone().Op(op).Add(d.Clone().Dot("Int").Call(jen.Op("-").Qual(jsondecodeImport, "MaxExactInt"), jen.Qual(jsondecodeImport, "MaxExactInt")))}, scalarChecks(lv, t)...)
	case ir.TypeFloat64:
		return append([]jen.Code{lv.Clone().Op(op).Add(d.Clone().Dot("Float").Call())}, scalarChecks(lv, t)...)
	case ir.TypeBool:
		return []jen.Code{lv.Clone().Op(op).Add(d.Clone().Dot("Bool").Call())}
	case ir.TypeTime:
		return []jen.Code{lv.Clone().Op(op).Add(d.Clone().Dot("Time").Call())}
	case ir.TypeRaw:
		if t.Union != nil {
			read := []jen.Code{lv.Clone().Op(op).Add(unionRead(t.Union, depth))}
			if !nullable {
				return read
			}
			return []jen.Code{jen.If(d.Clone().Dot("IsNull").Call()).Block(
				lv.Clone().Op("=").Qual(jsonImport, "RawMessage").Call(jen.Lit("null")),
			).Else().Block(read...)}
		}
		return []jen.Code{lv.Clone().Op(op).Add(d.Clone().Dot("Raw").Call())}
	case ir.TypeExternal:
		raw := jen.Id("raw" + n)
		return []jen.Code{jen.If(raw.Clone().Op(":=").Add(d.Clone()).Dot("Raw").Call(), raw.Clone().Op("!=").Nil()).Block(
			jen.If(jen.Err().Op(":=").Qual(jsonImport, "Unmarshal").Call(raw.Clone(), jen.Op("&").Add(lv.Clone())), jen.Err().Op("!=").Nil()).Block(
				d.Clone().Dot("Violate").Call(jen.Err().Dot("Error").Call()),
			),
		)}
	case ir.TypeDeclared:
		return []jen.Code{lv.Clone().Dot(ir.JSONMethod).Call(d.Clone())}
	case ir.TypeNullable:
		return []jen.Code{
			lv.Clone().Dot("Set").Op("=").True(),
			jen.If(d.Clone().Dot("IsNull").Call()).Block(lv.Clone().Dot("Null").Op("=").True()).
				Else().Block(jsonValue(lv.Clone().Dot("Value"), t.Elem, false, depth)...),
		}
	case ir.TypePointer:
		// An optional scalar or enum is read by one runtime call that
		// returns the new variable: about 60 bytes of machine code less
		// per field than a new and a copy here.
		x := jen.Id("x" + n)
		var stmts []jen.Code
		switch e := t.Elem; {
		case e.Kind == ir.TypeDeclared && e.Decl.Values != "":
			stmts = []jen.Code{lv.Clone().Op("=").Parens(jen.Op("*").Add(typeCode(e))).Call(d.Clone().Dot("EnumPtr").Call(jen.Id(e.Decl.Values)))}
			return orNull(stmts)
		case e.Kind == ir.TypeDeclared:
			stmts = []jen.Code{x.Clone().Op(":=").New(typeCode(e)), x.Clone().Dot(ir.JSONMethod).Call(d.Clone())}
		case ptrReader(e.Kind) != "" && depth == 0:
			// A field of the struct being decoded: the runtime stores it.
			stmts = append([]jen.Code{d.Clone().Dot(ptrReader(e.Kind) + "To").Call(jen.Op("&").Add(lv.Clone()))}, scalarChecks(jen.Op("*").Add(lv.Clone()), e)...)
			return orNull(stmts)
		case ptrReader(e.Kind) != "":
			stmts = append([]jen.Code{x.Clone().Op(":=").Add(d.Clone().Dot(ptrReader(e.Kind)).Call())}, scalarChecks(jen.Op("*").Add(x.Clone()), e)...)
		default:
			stmts = newValue(x, e, depth+1)
			x = jen.Op("&").Add(x)
		}
		stmts = append(stmts, lv.Clone().Op("=").Add(x))
		return orNull(stmts)
	case ir.TypeSlice:
		e := jen.Id("e" + n)
		mark := jen.Id("mark" + n)
		unique := t.Checks != nil && t.Checks.UniqueItems
		var stmts []jen.Code
		if unique {
			stmts = append(stmts, mark.Clone().Op(":=").Add(d.Clone()).Dot("Mark").Call())
		}
		elem := newValue(e, t.Elem, depth+1)
		elem = append(elem, lv.Clone().Op("=").Append(lv.Clone(), e.Clone()))
		inner := []jen.Code{
			lv.Clone().Op("=").Add(typeCode(t)).Values(),
			jen.For(d.Clone().Dot("Next").Call()).Block(elem...),
		}
		inner = append(inner, countChecks(jen.Len(lv.Clone()), t.Checks)...)
		if unique {
			inner = append(inner, d.Clone().Dot("UniqueItems").Call(mark.Clone()))
		}
		stmts = append(stmts, jen.If(d.Clone().Dot("BeginArray").Call()).Block(inner...))
		return orNull(stmts)
	case ir.TypeMap:
		e := jen.Id("e" + n)
		elem := append([]jen.Code{jen.Id("k" + n).Op(":=").String().Call(d.Clone().Dot("Key").Call())}, newValue(e, t.Elem, depth+1)...)
		elem = append(elem, lv.Clone().Index(jen.Id("k"+n)).Op("=").Add(e.Clone()))
		inner := []jen.Code{
			lv.Clone().Op("=").Add(typeCode(t)).Values(),
			jen.For(d.Clone().Dot("Member").Call()).Block(elem...),
		}
		inner = append(inner, countChecks(jen.Len(lv.Clone()), t.Checks)...)
		return orNull([]jen.Code{jen.If(d.Clone().Dot("BeginObject").Call()).Block(inner...)})
	}
	panic("emit: no JSON decoding for type kind " + strconv.Itoa(int(t.Kind)))
}

// ptrReader names the jsondecode.Decoder method that reads an optional
// scalar of kind k into a new variable, or returns "" for other kinds.
func ptrReader(k ir.TypeKind) string {
	switch k {
	case ir.TypeString:
		return "StringPtr"
	case ir.TypeInt32:
		return "Int32Ptr"
	case ir.TypeInt64:
		return "Int64Ptr"
	case ir.TypeFloat64:
		return "FloatPtr"
	case ir.TypeBool:
		return "BoolPtr"
	}
	return ""
}

// unionRead returns the call that reads a union's value and checks it
// against its branches: by its discriminator when it has one, otherwise
// by trying each branch.
func unionRead(u *ir.Union, depth int) *jen.Statement {
	d := jen.Id(dec)
	branch := func(t *ir.GoType) jen.Code {
		x := jen.Id("x" + strconv.Itoa(depth+1))
		body := append(newValue(x, t, depth+1), jen.Id("_").Op("=").Add(x.Clone()))
		return jen.Func().Params(jen.Id(dec).Op("*").Qual(jsondecodeImport, "Decoder")).Block(body...)
	}
	if u.Discriminator != "" {
		values := make([]jen.Code, len(u.Mapping))
		args := []jen.Code{jen.Lit(u.Discriminator), nil}
		for i, c := range u.Mapping {
			values[i] = jen.Lit(c.Value)
			args = append(args, branch(u.Branches[c.Branch]))
		}
		args[1] = jen.Index().String().Values(values...)
		return d.Clone().Dot("Discriminated").Call(args...)
	}
	args := []jen.Code{jen.Lit(u.Exclusive)}
	for _, b := range u.Branches {
		args = append(args, branch(b))
	}
	return d.Clone().Dot("Union").Call(args...)
}

// scalarChecks returns the checks of a string or number just read into
// lv.
func scalarChecks(lv *jen.Statement, t *ir.GoType) []jen.Code {
	c := t.Checks
	if c == nil {
		return nil
	}
	d := jen.Id(dec)
	var out []jen.Code
	num := func() *jen.Statement {
		if t.Kind == ir.TypeFloat64 {
			return lv.Clone()
		}
		return jen.Float64().Call(lv.Clone())
	}
	if c.MinLength != nil {
		out = append(out, d.Clone().Dot("MinLength").Call(lv.Clone(), jen.Lit(*c.MinLength)))
	}
	if c.MaxLength != nil {
		out = append(out, d.Clone().Dot("MaxLength").Call(lv.Clone(), jen.Lit(*c.MaxLength)))
	}
	if c.Pattern != nil {
		out = append(out, d.Clone().Dot("Pattern").Call(lv.Clone(), jen.Id(c.Pattern.Var), jen.Lit(c.Pattern.Source)))
	}
	if f := formatName(c.Format); f != "" {
		out = append(out, d.Clone().Dot("CheckFormat").Call(lv.Clone(), jen.Qual(jsondecodeImport, f)))
	}
	if c.Minimum != nil {
		out = append(out, d.Clone().Dot("Minimum").Call(num(), jen.Lit(c.Minimum.Value), jen.Lit(c.Minimum.Exclusive)))
	}
	if c.Maximum != nil {
		out = append(out, d.Clone().Dot("Maximum").Call(num(), jen.Lit(c.Maximum.Value), jen.Lit(c.Maximum.Exclusive)))
	}
	if c.MultipleOf != nil {
		out = append(out, d.Clone().Dot("MultipleOf").Call(num(), jen.Lit(*c.MultipleOf)))
	}
	var cases []jen.Code
	wording := ""
	for _, s := range c.Strings {
		cases = append(cases, jen.Lit(s))
		wording = appendWording(wording, strconv.Quote(s))
	}
	for _, v := range c.Numbers {
		cases = append(cases, jen.Lit(v))
		wording = appendWording(wording, strconv.FormatFloat(v, 'g', -1, 64))
	}
	if len(cases) > 0 {
		subject := lv.Clone()
		if len(c.Numbers) > 0 {
			subject = num()
		}
		out = append(out, jen.Switch(subject).Block(
			jen.Case(cases...),
			jen.Default().Add(d.Clone().Dot("NotOneOf").Call(jen.Lit(wording))),
		))
	}
	return out
}

func appendWording(list, v string) string {
	if list == "" {
		return "one of " + v
	}
	return list + ", " + v
}

// countChecks returns the checks on the length n of an array or object.
func countChecks(n *jen.Statement, c *ir.Checks) []jen.Code {
	if c == nil {
		return nil
	}
	d := jen.Id(dec)
	var out []jen.Code
	for _, b := range []struct {
		method string
		v      *int
	}{{"MinItems", c.MinItems}, {"MaxItems", c.MaxItems}, {"MinProperties", c.MinProperties}, {"MaxProperties", c.MaxProperties}} {
		if b.v != nil {
			out = append(out, d.Clone().Dot(b.method).Call(n.Clone(), jen.Lit(*b.v)))
		}
	}
	return out
}

// formatName is the runtime's name of a checked format.
func formatName(format string) string {
	switch format {
	case ir.FormatDate:
		return "FormatDate"
	case ir.FormatDateTime:
		return "FormatDateTime"
	case ir.FormatUUID:
		return "FormatUUID"
	case ir.FormatEmail:
		return "FormatEmail"
	case ir.FormatURI:
		return "FormatURI"
	}
	return ""
}

// paramChecks returns the statements that check the parameters of a
// request r that have a Checked type against their schemas, reporting
// into d before the body, and set the field of each FromCheck parameter
// of the typed request req from the value its check read.
func paramChecks(params []ir.Param) []jen.Code {
	d := jen.Id(dec)
	r := jen.Id("r")
	var out []jen.Code
	for _, pm := range params {
		if pm.Checked == nil {
			continue
		}
		name := jen.Lit(pm.Name)
		var value, count jen.Code // the first value, and how many the request holds
		switch pm.In {
		case ir.InPath:
			value, count = r.Clone().Dot("PathParams").Index(name), jen.Lit(1)
		case ir.InQuery:
			value, count = r.Clone().Dot("Query").Dot("Get").Call(name), jen.Len(r.Clone().Dot("Query").Index(name))
		default:
			value = r.Clone().Dot("Header").Dot("Get").Call(name)
			count = jen.Len(r.Clone().Dot("Header").Dot("Values").Call(name))
		}
		s, v := jen.Id("s"), jen.Id("v")
		var read jen.Code // the typed value of s; nil for a string, s itself
		switch pm.Checked.Kind {
		case ir.TypeInt32:
			read = jen.Int32().Call(d.Clone().Dot("ParamInt").Call(s.Clone(), jen.Qual(mathImport, "MinInt32"), jen.Qual(mathImport, "MaxInt32")))
		case ir.TypeInt64:
			read = d.Clone().Dot("ParamInt").Call(s.Clone(), jen.Op("-").Qual(jsondecodeImport, "MaxExactInt"), jen.Qual(jsondecodeImport, "MaxExactInt"))
		case ir.TypeFloat64:
			read = d.Clone().Dot("ParamFloat").Call(s.Clone())
		case ir.TypeBool:
			read = d.Clone().Dot("ParamBool").Call(s.Clone())
		}
		x := s
		if read != nil {
			x = v
		}
		checks := scalarChecks(x, pm.Checked)
		var stmts []jen.Code
		switch {
		case read == nil:
			stmts = checks
		case len(checks) == 0 && !pm.FromCheck:
			stmts = []jen.Code{jen.Id("_").Op("=").Add(read)}
		case len(checks) == 0 && pm.Type.Kind != ir.TypePointer:
			x = jen.Add(read) // the field is set from the read itself
		default:
			stmts = append([]jen.Code{v.Clone().Op(":=").Add(read)}, checks...)
		}
		if pm.FromCheck {
			if pm.Type.Kind == ir.TypePointer {
				stmts = append(stmts, paramField(pm).Op("=").Op("&").Add(x))
			} else {
				stmts = append(stmts, paramField(pm).Op("=").Add(x))
			}
		}
		call := d.Clone().Dot("Param").Call(jen.Lit(pm.In), name, value, count, jen.Lit(pm.Required))
		if len(stmts) == 0 {
			out = append(out, jen.List(jen.Id("_"), jen.Id("_")).Op("=").Add(call))
			continue
		}
		out = append(out, jen.If(jen.List(s.Clone(), jen.Id("ok")).Op(":=").Add(call), jen.Id("ok")).Block(stmts...))
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, d.Clone().Dot("EndParams").Call())
}
