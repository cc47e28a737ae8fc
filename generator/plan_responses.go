package generator

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// planResponses plans one Go type per documented response of an
// operation, with its typed headers, and the names of the operation's
// response interface and its method.
func planResponses(p *ir.Operation, ot *OperationTypes, names *Namespace) {
	op := ot.Op
	p.ResponseType = names.Unique(ot.Name+"Response", "response interface of "+describe(op), op.Pos)
	p.ResponseMethod = "response" + ot.Name
	for _, rt := range ot.Responses {
		r := &ir.Response{Code: rt.Code, Body: rt.Body, RawBody: rt.Raw}
		if strings.Contains(r.RawBody, "*") {
			r.RawBody = "application/octet-stream" // a range such as image/* names no media type to send
		}
		if n, err := strconv.Atoi(rt.Code); err == nil {
			r.Status = n
		} else if rt.Code != "default" {
			r.Class = int(rt.Code[0] - '0')
		}
		if rt.Response.Description != nil {
			r.Description = commentText(*rt.Response.Description)
		}
		what := rt.Code + " response of " + describe(op)
		r.Name = names.Unique(ot.Name+codeName(rt.Code)+"Response", what, op.Pos)
		fields := NewNamespace()
		for _, name := range slices.Sorted(maps.Keys(rt.Response.Headers)) {
			ref := rt.Response.Headers[name]
			if ref == nil || ref.Value == nil || strings.EqualFold(name, "Content-Type") {
				continue
			}
			h := &ref.Value.Parameter
			r.Headers = append(r.Headers, ir.Header{
				Name:     http.CanonicalHeaderKey(name),
				Field:    fields.Unique(GoName(name), "header "+name+" of the "+what, op.Pos),
				Type:     paramType(h.Schema, h.Required),
				Required: h.Required,
			})
		}
		if len(r.Headers) > 0 {
			r.HeadersType = names.Unique(ot.Name+codeName(rt.Code)+"Headers", "headers of the "+what, op.Pos)
		}
		p.Responses = append(p.Responses, r)
	}
}

// planRequest plans the typed request of an operation: its path
// parameters as fields, its query, header and cookie parameters in a
// params struct, and its body. keyHeader is the idempotency key's header, which
// the operation handle carries instead.
func planRequest(p *ir.Operation, op *spec.Operation, name, keyHeader string, names *Namespace) {
	p.RequestType = names.Unique(name+"Request", "typed request of "+describe(op), op.Pos)
	p.DecodeFunc = names.Unique("decode"+name, "typed request decoder of "+describe(op), op.Pos)
	fields := NewNamespace()
	fields.Reserve("the typed request", ir.FieldBody, ir.FieldParams)
	params := NewNamespace()
	var path, other []ir.Param
	for _, prm := range parameters(op) {
		if prm.In == openapi3.ParameterInHeader && keyHeader != "" && strings.EqualFold(prm.Name, keyHeader) {
			continue
		}
		required := prm.Required || prm.In == openapi3.ParameterInPath
		ip := ir.Param{Name: prm.Name, In: prm.In, Type: paramType(prm.Schema, required), Required: required}
		switch prm.In {
		case openapi3.ParameterInPath:
			ip.Field = fields.Unique(GoName(prm.Name), "path parameter "+prm.Name, op.Pos)
			path = append(path, ip)
		case openapi3.ParameterInQuery, openapi3.ParameterInHeader, openapi3.ParameterInCookie:
			if prm.In == openapi3.ParameterInHeader {
				ip.Name = http.CanonicalHeaderKey(prm.Name)
			}
			ip.Field = params.Unique(GoName(prm.Name), prm.In+" parameter "+prm.Name, op.Pos)
			other = append(other, ip)
		}
	}
	p.Params = append(path, other...)
	if len(other) > 0 {
		p.ParamsType = names.Unique(name+"Params", "parameters of "+describe(op), op.Pos)
	}
}

// parameters returns an operation's parameters, those of its path item
// included unless the operation overrides them, sorted by location (path,
// query, header) and name.
func parameters(op *spec.Operation) []*openapi3.Parameter {
	type key struct{ in, name string }
	seen := map[key]bool{}
	var out []*openapi3.Parameter
	add := func(params openapi3.Parameters) {
		for _, ref := range params {
			if ref == nil || ref.Value == nil {
				continue
			}
			k := key{ref.Value.In, ref.Value.Name}
			if ref.Value.In == openapi3.ParameterInHeader {
				k.name = http.CanonicalHeaderKey(k.name)
			}
			if !seen[k] {
				seen[k] = true
				out = append(out, ref.Value)
			}
		}
	}
	if op.Op != nil {
		add(op.Op.Parameters)
	}
	if op.PathItem != nil {
		add(op.PathItem.Parameters)
	}
	order := map[string]int{openapi3.ParameterInPath: 0, openapi3.ParameterInQuery: 1, openapi3.ParameterInHeader: 2, openapi3.ParameterInCookie: 3}
	slices.SortFunc(out, func(a, b *openapi3.Parameter) int {
		return cmp.Or(cmp.Compare(order[a.In], order[b.In]), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// paramType is the Go type of a parameter or header with schema s: a
// scalar, a list of scalars, or the raw text for anything else; a pointer
// when it is optional (lists have their own nil).
func paramType(s *openapi3.SchemaRef, required bool) *GoType {
	t := scalarType(s)
	if t == nil && s != nil && s.Value != nil && s.Value.Type.Is(openapi3.TypeArray) {
		if elem := scalarType(s.Value.Items); elem != nil {
			return &GoType{Kind: TypeSlice, Elem: elem}
		}
	}
	if t == nil {
		t = &GoType{Kind: TypeString}
	}
	if !required {
		return &GoType{Kind: TypePointer, Elem: t}
	}
	return t
}

// scalarType is the Go type of a scalar schema; nil for anything else.
func scalarType(s *openapi3.SchemaRef) *GoType {
	if s == nil || s.Value == nil || s.Value.Type == nil || len(*s.Value.Type) != 1 {
		return nil
	}
	v := s.Value
	switch {
	case v.Type.Is(openapi3.TypeString) && v.Format == "date-time":
		return &GoType{Kind: TypeTime, Format: v.Format}
	case v.Type.Is(openapi3.TypeString):
		return &GoType{Kind: TypeString, Format: v.Format}
	case v.Type.Is(openapi3.TypeInteger) && v.Format == "int32":
		return &GoType{Kind: TypeInt32, Format: v.Format}
	case v.Type.Is(openapi3.TypeInteger):
		return &GoType{Kind: TypeInt64, Format: v.Format}
	case v.Type.Is(openapi3.TypeNumber):
		return &GoType{Kind: TypeFloat64, Format: v.Format}
	case v.Type.Is(openapi3.TypeBoolean):
		return &GoType{Kind: TypeBool}
	}
	return nil
}
