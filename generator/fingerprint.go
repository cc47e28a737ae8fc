package generator

import (
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
// array, or a pointer into a free-form value) are errors at their position:
// a silently different fingerprint would break the contract.
func planFingerprint(c *spec.Contract, req *GoType) (ir.Fingerprint, spec.ErrorList) {
	var fp ir.Fingerprint
	var errs spec.ErrorList
	fp.Include, errs = includePointers(req, c.Fingerprint.Include, "x-idempotency.fingerprint.include")
	sortIncludes(fp.Include)
	for _, list := range []struct {
		name   string
		fields []spec.Field[string]
		into   *[][]string
	}{
		{"exclude", c.Fingerprint.Exclude, &fp.Exclude},
		{"unordered", c.Fingerprint.Unordered, &fp.Unordered},
	} {
		for _, f := range list.fields {
			segs := jsonpointer.Split(f.Value)
			if err := checkWalkPath(req, segs, list.name == "exclude"); err != "" {
				errs = append(errs, &spec.Error{Pos: f.Pos, Path: "x-idempotency.fingerprint." + list.name, Msg: "pointer " + strconv.Quote(f.Value) + ": " + err})
				continue
			}
			*list.into = append(*list.into, segs)
		}
	}
	return fp, errs
}

// includePointers plans pointers whose values the typed walk writes (the
// fingerprint's include list, the natural key), in the given order; a
// pointer it cannot follow is an error at path.
func includePointers(req *GoType, fields []spec.Field[string], path string) ([]ir.Pointer, spec.ErrorList) {
	var out []ir.Pointer
	var errs spec.ErrorList
	for _, f := range fields {
		segs := jsonpointer.Split(f.Value)
		if err := checkIncludePath(req, segs); err != "" {
			errs = append(errs, &spec.Error{Pos: f.Pos, Path: path, Msg: "pointer " + strconv.Quote(f.Value) + ": " + err})
			continue
		}
		out = append(out, ir.Pointer{Pointer: f.Value, Segments: segs})
	}
	return out, errs
}

// checkIncludePath reports why the typed walk cannot follow an include
// pointer, or "" when it can. A member the type does not have is fine: the
// pointer then never resolves, on either path.
func checkIncludePath(t *GoType, segs []string) string {
	for _, s := range segs {
		t = deref(t)
		switch t.Kind {
		case TypeRaw, TypeExternal:
			return "it reaches into a free-form value, which a typed fingerprint cannot select from; include the whole value instead"
		case TypeSlice:
			if _, err := strconv.Atoi(s); err != nil {
				return "segment " + strconv.Quote(s) + " is not an array index"
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
		t = deref(t)
		switch t.Kind {
		case TypeRaw, TypeExternal:
			return "it reaches into a free-form value, which a typed fingerprint cannot walk; exclude or order the whole value instead"
		case TypeSlice:
			if s != wildcard {
				return "an array index is not supported here; use * for every element"
			}
			t = t.Elem
		case TypeMap:
			if s != wildcard && !(exclude && last) {
				return "a single map member is supported only as the last segment of an exclude pointer; use * for every member"
			}
			t = t.Elem
		case TypeDeclared:
			if t.Decl.Kind != DeclStruct {
				return ""
			}
			if s == wildcard {
				if !last {
					return "* over an object's members is supported only as the last segment; name the member instead"
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
