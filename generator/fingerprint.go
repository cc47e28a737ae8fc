package generator

import (
	"strconv"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// FingerprintPlan is what an operation's typed fingerprint covers, decided
// from its contract: the include pointers in the order they are written
// (SortKeys order) and the exclude and unordered pointers split into
// segments. It follows the rules of runtime/fingerprint, so the generated
// walk gives the sum Spec.Sum gives for the JSON encoding of the same
// request.
type FingerprintPlan struct {
	// Include is empty when the whole body is significant.
	Include   []IncludePointer
	Exclude   [][]string
	Unordered [][]string
}

// IncludePointer is one include pointer with its segments.
type IncludePointer struct {
	Pointer  string
	Segments []string
	Pos      spec.Position
}

// wildcard stands for every element or member in exclude and unordered
// pointers.
const wildcard = "*"

// planFingerprint resolves the fingerprint pointers of a contract against
// the request type. Pointers the typed walk cannot follow (an index into an
// array, or a pointer into a free-form value) are errors at their position:
// a silently different fingerprint would break the contract.
func planFingerprint(c *spec.Contract, req *GoType) (*FingerprintPlan, spec.ErrorList) {
	fp := &FingerprintPlan{}
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
			segs := pointerSegments(f.Value)
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
func includePointers(req *GoType, fields []spec.Field[string], path string) ([]IncludePointer, spec.ErrorList) {
	var out []IncludePointer
	var errs spec.ErrorList
	for _, f := range fields {
		segs := pointerSegments(f.Value)
		if err := checkIncludePath(req, segs); err != "" {
			errs = append(errs, &spec.Error{Pos: f.Pos, Path: path, Msg: "pointer " + strconv.Quote(f.Value) + ": " + err})
			continue
		}
		out = append(out, IncludePointer{Pointer: f.Value, Segments: segs, Pos: f.Pos})
	}
	return out, errs
}

// pointerSegments splits an RFC 6901 pointer and unescapes ~1 and ~0.
func pointerSegments(p string) []string {
	if p == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts
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

// deref strips pointers.
func deref(t *GoType) *GoType {
	for t.Kind == TypePointer {
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
		if len(p) > 0 && (p[0] == name || p[0] == wildcard) {
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
		if len(p) == 1 && p[0] != wildcard {
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
			if p[i] != path[i] && p[i] != wildcard {
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
