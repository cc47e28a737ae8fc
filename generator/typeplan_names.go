package generator

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// name gives every pending declaration, struct field and enum constant its
// final name, in an order that makes the result independent of how the
// operations were given:
//
//  1. component schemas, sorted by $ref, so a component keeps its own name
//     whatever else wants it;
//  2. inline schemas, in discovery order (operations by path and method,
//     request before response, properties by name, depth first), each
//     after the declaration it is inside, whose final name starts its own;
//  3. the fields of each struct, by JSON name (whatever order the schema
//     declares them in), in a namespace of their own that holds the
//     struct's methods;
//  4. enum constants, by type name and then in the schema's order, after
//     every type, so a type never yields to a constant (Stripe's
//     SourceTypeAchCreditTransfer is both a schema and a value of
//     source_type).
//
// Every step uses Namespace.Unique: a later source that wants a taken name
// gets the next free numbered one.
func (p *typePlanner) name() {
	names := p.plan.Names
	var comps, inline []*pendingDecl
	for _, pd := range p.pending {
		if pd.component != "" {
			comps = append(comps, pd)
		} else {
			inline = append(inline, pd)
		}
	}
	slices.SortStableFunc(comps, func(a, b *pendingDecl) int { return cmp.Compare(a.component, b.component) })
	for i, pd := range append(comps, inline...) {
		key := pd.decl.Source
		if names.hasKey(key) {
			key += " #" + strconv.Itoa(i)
		}
		want := pd.want
		if pd.parent != nil {
			want = pd.parent.decl.Name + want
		}
		pd.decl.Name = names.Unique(want, key, p.plan.DeclPos(pd.decl))
		p.plan.Decls = append(p.plan.Decls, pd.decl)
	}
	var fieldRenames []Rename
	for _, pd := range p.pending {
		fields := NewNamespace()
		fields.Reserve("a method", append([]string{formMethod}, p.opts.StructMethods...)...)
		for _, i := range byJSONName(pd.decl.Fields) {
			f := pd.decl.Fields[i]
			f.Name = fields.Unique(pd.fields[i], "field "+f.JSONName+" of "+pd.decl.Name, p.plan.FieldPos(f))
		}
		fieldRenames = append(fieldRenames, fields.Renames()...)
	}
	slices.SortFunc(p.plan.Decls, func(a, b *TypeDecl) int { return cmp.Compare(a.Name, b.Name) })
	for _, d := range p.plan.Decls {
		if len(d.Consts) > 0 {
			// Unexported, so no exported name can take it; no other
			// generated identifier begins with "values" or "members".
			d.Values = "values" + d.Name
		}
		if len(d.Fields) > 0 {
			// Likewise for "members".
			d.Members, d.MemberOrder = "members"+d.Name, byLengthAndName(d.Fields)
		}
		for _, c := range d.Consts {
			c.Name = names.Unique(d.Name+GoName(c.Value), "value "+strconv.Quote(c.Value)+" of "+d.Name, p.plan.DeclPos(d))
		}
	}
	p.plan.Renames = append(slices.Clone(names.Renames()), fieldRenames...)
}

// byLengthAndName returns the indexes of fields in the order
// jsondecode.Decoder.Field searches: their JSON names shortest first,
// names of one length in byte order.
func byLengthAndName(fields []*StructField) []int {
	order := byJSONName(fields)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(fields[a].JSONName), len(fields[b].JSONName)) })
	return order
}

// byJSONName returns the indexes of fields in the byte order of their JSON
// names.
func byJSONName(fields []*StructField) []int {
	order := make([]int, len(fields))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(fields[a].JSONName, fields[b].JSONName) })
	return order
}

// canonical sets every struct's fields in the order a fingerprint writes
// them: RFC 8785's order of their JSON names.
func (p *typePlanner) canonical() {
	for _, d := range p.plan.Decls {
		names := make([]string, len(d.Fields))
		byName := make(map[string]*StructField, len(d.Fields))
		for i, f := range d.Fields {
			names[i] = f.JSONName
			byName[f.JSONName] = f
		}
		d.Canonical = make([]*StructField, 0, len(d.Fields))
		for _, n := range fingerprint.SortKeys(names) {
			d.Canonical = append(d.Canonical, byName[n])
		}
	}
}

// markForm sets Form on every declaration a form request body reaches.
func (p *typePlanner) markForm() {
	for _, ot := range p.plan.Operations {
		if ot.Request != nil && ir.FormLike(ot.Request.MediaType) {
			markFormType(ot.Request.Type)
		}
	}
}

// markFormType sets Form on the declarations t reaches.
func markFormType(t *GoType) {
	switch {
	case t.Elem != nil:
		markFormType(t.Elem)
	case t.Decl != nil && !t.Decl.Form:
		t.Decl.Form = true
		for _, f := range t.Decl.Fields {
			markFormType(f.Type)
		}
	}
}
