package generator

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/jsonpointer"
	"github.com/idemgen/idemgen/spec"
)

// wildcard stands for every element or member in exclude and unordered
// pointers.
const wildcard = ir.Wildcard

// planFingerprint resolves the fingerprint pointers of a contract against
// the request type. Pointers the typed walk cannot follow (an index into an
// array, or a pointer into a value kept whole) are errors at their
// position: a silently different fingerprint would break the contract.
func planFingerprint(c *spec.Contract, req *GoType) (ir.Fingerprint, spec.ErrorList) {
	var fp ir.Fingerprint
	var errs spec.ErrorList
	fp.Include, errs = includePointers(req, c.Fingerprint.Include, "fingerprint.include")
	sortIncludes(fp.Include)
	for _, list := range []struct {
		name   string
		fields []spec.Field[string]
		into   *[][]string
	}{
		{"exclude", c.Fingerprint.Exclude, &fp.Exclude},
		{"unordered", c.Fingerprint.Unordered, &fp.Unordered},
	} {
		for i, f := range list.fields {
			segs := jsonpointer.Split(f.Value)
			if problem := checkWalkPath(req, segs, list.name == "exclude"); problem != "" {
				errs = append(errs, pointerError(f, "fingerprint."+list.name, i, problem))
				continue
			}
			*list.into = append(*list.into, segs)
		}
	}
	return fp, errs
}

// includePointers plans pointers whose values the typed walk writes (the
// fingerprint's include list, the natural key), in the given order; a
// pointer it cannot follow is an error of the named list.
func includePointers(req *GoType, fields []spec.Field[string], list string) ([]ir.Pointer, spec.ErrorList) {
	var out []ir.Pointer
	var errs spec.ErrorList
	for i, f := range fields {
		segs := jsonpointer.Split(f.Value)
		if problem := checkIncludePath(req, segs); problem != "" {
			errs = append(errs, pointerError(f, list, i, problem))
			continue
		}
		out = append(out, ir.Pointer{Pointer: f.Value, Segments: segs})
	}
	return out, errs
}

// pointerError is the error of the i-th pointer f of the named list
// (fingerprint.exclude, natural-key) that the typed walk cannot follow.
func pointerError(f spec.Field[string], list string, i int, problem string) *spec.Error {
	return &spec.Error{Pos: f.Pos, Path: fmt.Sprintf("x-idempotency.%s[%d]", list, i),
		Msg: fmt.Sprintf("%s %s cannot be generated: %s", list, f.Value, problem)}
}

// checkIncludePath reports why the typed walk cannot follow an include
// pointer, or "" when it can. A member the type does not have is fine: the
// pointer then never resolves, on either path.
func checkIncludePath(t *GoType, segs []string) string {
	for i, s := range segs {
		t = deref(t)
		switch t.Kind {
		case TypeRaw, TypeExternal:
			return orBody(segs[:i]) + " is " + keptWhole(t) + ", which generated code keeps whole and cannot select from"
		case TypeSlice:
			if _, err := strconv.Atoi(s); err != nil {
				return "segment " + strconv.Quote(s) + " of " + orBody(segs[:i]) + " is not an array index"
			}
			t = t.Elem
		case TypeMap:
			t = t.Elem
		case TypeDeclared:
			if t.Decl.Kind != DeclStruct {
				return ""
			}
			f := fieldByJSON(t.Decl, s)
			if f == nil {
				return ""
			}
			t = f.Type
		default:
			return ""
		}
	}
	return ""
}

// checkWalkPath reports why the typed walk cannot apply an exclude or
// unordered pointer, or "" when it can.
func checkWalkPath(t *GoType, segs []string, exclude bool) string {
	for i, s := range segs {
		last := i == len(segs)-1
		at := orBody(segs[:i])
		t = deref(t)
		switch t.Kind {
		case TypeRaw, TypeExternal:
			return at + " is " + keptWhole(t) + ", which generated code keeps whole and cannot walk into"
		case TypeSlice:
			if s != wildcard {
				return at + " is an array, and generated code addresses its elements only all at once, with *"
			}
			t = t.Elem
		case TypeMap:
			if s != wildcard && !(exclude && last) {
				return at + " is a map, and generated code addresses a single member only as the last segment of an exclude pointer; elsewhere use * for every member"
			}
			t = t.Elem
		case TypeDeclared:
			if t.Decl.Kind != DeclStruct {
				return ""
			}
			if s == wildcard {
				if !last {
					return "* over the members of the object " + at + " is supported only as the last segment; name the member instead"
				}
				return ""
			}
			f := fieldByJSON(t.Decl, s)
			if f == nil {
				return ""
			}
			t = f.Type
		default:
			return ""
		}
	}
	return ""
}

// keptWhole names a value that generated code keeps as the client sent it.
func keptWhole(t *GoType) string {
	switch {
	case t.Kind == TypeExternal:
		return "a value bound to a Go type with x-go-type"
	case t.Union != nil:
		return "a oneOf/anyOf union"
	}
	return "a free-form value"
}

// orBody names the place of a pointer's first tokens in messages; no
// tokens are the request body.
func orBody(segs []string) string {
	if len(segs) == 0 {
		return "the request body"
	}
	return jsonpointer.Join(segs...)
}

// deref strips pointers and Nullables.
func deref(t *GoType) *GoType {
	for t.Kind == TypePointer || t.Kind == TypeNullable {
		t = t.Elem
	}
	return t
}

// fieldByJSON returns the struct field with a JSON name, or nil.
func fieldByJSON(d *TypeDecl, name string) *StructField {
	for _, f := range d.Fields {
		if f.JSONName == name {
			return f
		}
	}
	return nil
}

// sortIncludes orders include pointers as the runtime orders object
// members, since they become the members of the include object.
func sortIncludes(in []ir.Pointer) {
	names := make([]string, len(in))
	for i, p := range in {
		names[i] = p.Pointer
	}
	order := fingerprint.SortKeys(names)
	slices.SortStableFunc(in, func(a, b ir.Pointer) int {
		return slices.Index(order, a.Pointer) - slices.Index(order, b.Pointer)
	})
}
