package generator

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/generator/ir"
)

// Checks are a schema's validation keywords, as the IR holds them.
type (
	Checks  = ir.Checks
	Pattern = ir.Pattern
)

// ParamCheck is a scalar path, query or header parameter with the checks
// of its schema; the planner sets it as the Checked type of the typed
// request's parameter of the same place and name.
type ParamCheck struct {
	// In is path, query or header.
	In       string
	Name     string
	Required bool
	// Type is a TypeString, TypeInt32, TypeInt64, TypeFloat64 or TypeBool
	// with the schema's Checks.
	Type *GoType
}

// params plans the scalar path, query and header parameters of op, the
// operation's own overriding its path item's; parameters of other shapes
// (arrays, objects, content) are left to the business code.
func (p *typePlanner) params(pathItem, own openapi3.Parameters) []*ParamCheck {
	var out []*ParamCheck
	index := map[[2]string]int{}
	for _, list := range []openapi3.Parameters{pathItem, own} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil || ref.Value.Schema == nil || ref.Value.Schema.Value == nil {
				continue
			}
			pv := ref.Value
			if pv.In != openapi3.ParameterInPath && pv.In != openapi3.ParameterInQuery && pv.In != openapi3.ParameterInHeader {
				continue
			}
			s := pv.Schema.Value
			var kind TypeKind
			switch schemaType(s) {
			case openapi3.TypeString:
				kind = TypeString
			case openapi3.TypeInteger:
				kind = TypeInt64
				if s.Format == "int32" {
					kind = TypeInt32
				}
			case openapi3.TypeNumber:
				kind = TypeFloat64
			case openapi3.TypeBoolean:
				kind = TypeBool
			default:
				continue
			}
			param := &ParamCheck{In: pv.In, Name: pv.Name, Required: pv.Required || pv.In == openapi3.ParameterInPath,
				Type: p.checked(&GoType{Kind: kind, Format: s.Format}, s)}
			key := [2]string{pv.In, pv.Name}
			if pv.In == openapi3.ParameterInHeader {
				key[1] = strings.ToLower(pv.Name)
			}
			if i, ok := index[key]; ok {
				out[i] = param
				continue
			}
			index[key] = len(out)
			out = append(out, param)
		}
	}
	return out
}

// checked sets on t the validation keywords of s that apply to its kind
// and returns t.
func (p *typePlanner) checked(t *GoType, s *openapi3.Schema) *GoType {
	c := &Checks{}
	switch t.Kind {
	case TypeString:
		c.MinLength = optInt(s.MinLength, s.MinLength > 0)
		if s.MaxLength != nil {
			c.MaxLength = optInt(*s.MaxLength, true)
		}
		if s.Pattern != "" {
			c.Pattern = p.pattern(s)
		}
		switch s.Format {
		case ir.FormatDate, ir.FormatUUID, ir.FormatEmail, ir.FormatURI, ir.FormatDateTime:
			c.Format = s.Format
		}
		if str, ok := s.Const.(string); ok {
			c.Strings = []string{str}
		}
		if len(s.Enum) > 0 {
			// An enum beside other keywords: the planner declares string
			// enums of plain schemas as types of their own.
			for _, v := range s.Enum {
				if str, ok := v.(string); ok && !slices.Contains(c.Strings, str) {
					c.Strings = append(c.Strings, str)
				}
			}
		}
	case TypeInt32, TypeInt64, TypeFloat64:
		if s.Min != nil {
			c.Minimum = &ir.Bound{Value: *s.Min, Exclusive: s.ExclusiveMin.IsTrue()}
		}
		if v := s.ExclusiveMin.Value; v != nil && (c.Minimum == nil || *v >= c.Minimum.Value) {
			c.Minimum = &ir.Bound{Value: *v, Exclusive: true}
		}
		if s.Max != nil {
			c.Maximum = &ir.Bound{Value: *s.Max, Exclusive: s.ExclusiveMax.IsTrue()}
		}
		if v := s.ExclusiveMax.Value; v != nil && (c.Maximum == nil || *v <= c.Maximum.Value) {
			c.Maximum = &ir.Bound{Value: *v, Exclusive: true}
		}
		if s.MultipleOf != nil && *s.MultipleOf > 0 {
			m := *s.MultipleOf
			c.MultipleOf = &m
		}
		values := s.Enum
		if s.Const != nil {
			values = append(values, s.Const)
		}
		for _, v := range values {
			if f, ok := number(v); ok && !slices.Contains(c.Numbers, f) {
				c.Numbers = append(c.Numbers, f)
			}
		}
	case TypeSlice:
		c.MinItems = optInt(s.MinItems, s.MinItems > 0)
		if s.MaxItems != nil {
			c.MaxItems = optInt(*s.MaxItems, true)
		}
		c.UniqueItems = s.UniqueItems
	case TypeMap:
		c.MinProperties = optInt(s.MinProps, s.MinProps > 0)
		if s.MaxProps != nil {
			c.MaxProperties = optInt(*s.MaxProps, true)
		}
	}
	if c.MinLength != nil || c.MaxLength != nil || c.Pattern != nil || c.Format != "" || c.Minimum != nil || c.Maximum != nil ||
		c.MultipleOf != nil || c.MinItems != nil || c.MaxItems != nil || c.UniqueItems || c.MinProperties != nil ||
		c.MaxProperties != nil || c.Strings != nil || c.Numbers != nil {
		t.Checks = c
	}
	return t
}

// structChecks sets a struct's own keywords: additionalProperties: false
// and the bounds on its members.
func structChecks(decl *TypeDecl, s *openapi3.Schema) {
	decl.Strict = s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has
	c := &Checks{MinProperties: optInt(s.MinProps, s.MinProps > 0)}
	if s.MaxProps != nil {
		c.MaxProperties = optInt(*s.MaxProps, true)
	}
	if c.MinProperties != nil || c.MaxProperties != nil {
		decl.Checks = c
	}
}

// enumWording words an enum's values for its violation.
func enumWording(decl *TypeDecl) string {
	values := make([]string, len(decl.Consts))
	for i, c := range decl.Consts {
		values[i] = strconv.Quote(c.Value)
	}
	return "one of " + strings.Join(values, ", ")
}

// pattern plans the pattern of s; a pattern RE2 cannot compile is an
// error at the schema.
func (p *typePlanner) pattern(s *openapi3.Schema) *Pattern {
	if _, err := regexp.Compile(s.Pattern); err != nil {
		msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
		pos := p.pos(s.Origin, p.zeroPos())
		p.errorf(pos, "pattern "+strconv.Quote(s.Pattern)+" is not a regular expression Go's RE2 accepts: "+msg)
		p.rules[p.errs[len(p.errs)-1]] = RulePattern
		return nil
	}
	return &Pattern{Source: s.Pattern}
}

func optInt(v uint64, set bool) *int {
	if !set {
		return nil
	}
	n := int(min(v, 1<<31))
	return &n
}

// number reads an enum or const value as a number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

// markJSON sets JSON on the declarations a JSON request body reaches and
// names the patterns the decoders check, in the order they are met: those
// of every operation's parameters and JSON body, then those of the form
// bodies (whose declarations stay unmarked).
func (p *typePlanner) markJSON() {
	seen := map[*GoType]bool{}
	for _, ot := range p.plan.Operations {
		for _, pm := range ot.Params {
			p.markJSONType(pm.Type, seen)
		}
		if ot.Request != nil && ot.Request.MediaType == MediaJSON {
			p.markJSONType(ot.Request.Type, seen)
		}
	}
	decls := map[*TypeDecl]bool{}
	for _, ot := range p.plan.Operations {
		if ot.Request != nil && ir.FormLike(ot.Request.MediaType) {
			p.nameFormPatterns(ot.Request.Type, decls)
		}
	}
}

func (p *typePlanner) markJSONType(t *GoType, seen map[*GoType]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	p.namePattern(t)
	if t.Union != nil {
		for _, br := range t.Union.Branches {
			p.markJSONType(br, seen)
		}
	}
	switch {
	case t.Elem != nil:
		p.markJSONType(t.Elem, seen)
	case t.Decl != nil && !t.Decl.JSON:
		t.Decl.JSON = true
		for _, f := range t.Decl.Fields {
			p.markJSONType(f.Type, seen)
		}
	}
}

// nameFormPatterns names the patterns a form body's checks reach.
func (p *typePlanner) nameFormPatterns(t *GoType, decls map[*TypeDecl]bool) {
	p.namePattern(t)
	switch {
	case t.Elem != nil:
		p.nameFormPatterns(t.Elem, decls)
	case t.Decl != nil && !decls[t.Decl]:
		decls[t.Decl] = true
		for _, f := range t.Decl.Fields {
			p.nameFormPatterns(f.Type, decls)
		}
	}
}

// namePattern names the pattern of t, when it has one not yet named.
func (p *typePlanner) namePattern(t *GoType) {
	if c := t.Checks; c != nil && c.Pattern != nil && c.Pattern.Var == "" {
		c.Pattern.Var = "pattern" + strconv.Itoa(len(p.plan.Patterns))
		p.plan.Patterns = append(p.plan.Patterns, c.Pattern)
	}
}
