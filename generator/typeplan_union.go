package generator

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/spec"
)

// The unions a JSON request body reaches. A union is raw JSON either way
// (the value is kept as the client sent it); its branches are planned
// only once a JSON request body is known to reach it, before naming, so a
// union only a response holds declares no branch types.

// unionSource is a oneOf or anyOf the decoder can check, waiting for
// planUnions.
type unionSource struct {
	s       *openapi3.Schema
	h       hint
	planned bool
}

// unionOf returns the raw type of a union schema, recording it for
// planUnions when spec.UncheckedUnion finds nothing against checking it.
func (p *typePlanner) unionOf(s *openapi3.Schema, h hint) *GoType {
	t := &GoType{Kind: TypeRaw}
	if spec.UncheckedUnion(s) == "" {
		p.unions[t] = &unionSource{s: s, h: h}
	}
	return t
}

// planUnions plans the branches of every union a JSON request body
// reaches.
func (p *typePlanner) planUnions() {
	seen := map[*GoType]bool{}
	for _, ot := range p.plan.Operations {
		if ot.Request != nil && ot.Request.MediaType == MediaJSON {
			p.reachUnions(ot.Request.Type, seen)
		}
	}
}

// reachUnions plans the unions t reaches.
func (p *typePlanner) reachUnions(t *GoType, seen map[*GoType]bool) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	switch {
	case t.Elem != nil:
		p.reachUnions(t.Elem, seen)
	case t.Decl != nil:
		for _, f := range t.Decl.Fields {
			p.reachUnions(f.Type, seen)
		}
	case t.Kind == TypeRaw:
		p.planUnion(t, seen)
	}
}

// planUnion plans the branches of the union t and sets t.Union, unless a
// branch becomes a type the decoder cannot check (raw JSON or an
// x-go-type), which would match every value: the union then stays
// unchecked.
func (p *typePlanner) planUnion(t *GoType, seen map[*GoType]bool) {
	src := p.unions[t]
	if src == nil || src.planned {
		return
	}
	src.planned = true
	refs := nonNull(slices.Concat(src.s.OneOf, src.s.AnyOf))
	u := &Union{Exclusive: len(src.s.OneOf) > 0}
	for i, ref := range refs {
		bt := p.typeOf(ref, src.h.child("Variant"+strconv.Itoa(i+1), spec.Ordinal(i+1)+" branch"))
		p.reachUnions(bt, seen)
		if bt.Kind == TypeExternal || bt.Kind == TypeRaw && bt.Union == nil {
			return
		}
		u.Branches = append(u.Branches, bt)
	}
	u.Discriminator, u.Mapping = discriminator(src.s, refs)
	t.Union = u
}

// discriminator returns the member and the value-to-branch mapping of a
// union's discriminator: the explicit mapping, and each branch's
// component name for a branch it does not name. A union without one, or
// with a branch no value names (an inline branch), has none: its branches
// are then tried in turn, which the discriminator only speeds up.
func discriminator(s *openapi3.Schema, refs openapi3.SchemaRefs) (string, []UnionCase) {
	dsc := s.Discriminator
	if dsc == nil || dsc.PropertyName == "" {
		return "", nil
	}
	var cases []UnionCase
	named := make([]bool, len(refs))
	for value, m := range dsc.Mapping {
		target := m.Ref
		if !strings.Contains(target, "/") {
			target = componentPrefix + target
		}
		i := slices.IndexFunc(refs, func(r *openapi3.SchemaRef) bool { return r.Ref == target })
		if i < 0 {
			return "", nil
		}
		cases = append(cases, UnionCase{Value: value, Branch: i})
		named[i] = true
	}
	for i, r := range refs {
		if named[i] {
			continue
		}
		_, name, ok := strings.Cut(r.Ref, componentPrefix)
		if !ok {
			return "", nil
		}
		cases = append(cases, UnionCase{Value: name, Branch: i})
	}
	slices.SortFunc(cases, func(a, b UnionCase) int { return cmp.Compare(a.Value, b.Value) })
	return dsc.PropertyName, cases
}
