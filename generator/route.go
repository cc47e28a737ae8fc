package generator

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// planRoute decides how an operation mounts: a path whose templated
// segments are each one wildcard the generator names, valid under
// net/http's ServeMux and chi whatever the OpenAPI parameter names are
// ({account-id}, {order.id}, {1st}), and for each segment that is not
// simply one parameter under its own name, how the values are taken apart.
func planRoute(op *spec.Operation) (ir.Route, []spec.Diagnostic) {
	var r ir.Route
	bad := func(msg string) (ir.Route, []spec.Diagnostic) {
		return ir.Route{}, []spec.Diagnostic{{Pos: op.Pos, Severity: spec.SeverityError, Rule: RuleRoute,
			Message: describe(op) + " cannot be mounted: " + msg, Hint: "give each path parameter a segment of its own, or separate parameters in one segment with literal text"}}
	}
	taken := map[string]bool{}
	segs := strings.Split(op.Path, "/")
	for i, seg := range segs {
		if !strings.ContainsAny(seg, "{}") {
			if strings.Contains(seg, "*") {
				return bad("segment " + strconv.Quote(seg) + " holds *, which chi reads as a catch-all")
			}
			continue
		}
		s, err := splitSegment(seg)
		if err != "" {
			return bad("segment " + strconv.Quote(seg) + " " + err)
		}
		for _, lit := range s.Literals {
			if strings.Contains(lit, "*") {
				return bad("segment " + strconv.Quote(seg) + " holds *, which chi reads as a catch-all")
			}
		}
		want := s.Params[0]
		if !wildcardName(want) {
			want = UnexportedName(want)
		}
		s.Wildcard = want
		for n := 2; taken[s.Wildcard]; n++ {
			s.Wildcard = fmt.Sprintf("%s%d", want, n)
		}
		taken[s.Wildcard] = true
		segs[i] = "{" + s.Wildcard + "}"
		if len(s.Params) > 1 || s.Literals[0] != "" || s.Literals[1] != "" || s.Wildcard != s.Params[0] {
			r.Segments = append(r.Segments, s)
		}
	}
	path := strings.Join(segs, "/")
	r.MuxPattern = op.Method + " " + path
	if strings.HasSuffix(path, "/") {
		r.MuxPattern += "{$}"
	}
	if err := mount(http.NewServeMux(), r.MuxPattern); err != nil {
		return bad(err.Error())
	}
	return r, nil
}

// splitSegment splits a templated segment into its literals and
// parameters, or says why it cannot be taken apart.
func splitSegment(seg string) (ir.Segment, string) {
	var s ir.Segment
	lit := ""
	for seg != "" {
		open := strings.IndexByte(seg, '{')
		if open < 0 {
			lit += seg
			break
		}
		end := strings.IndexByte(seg[open:], '}')
		if end < 0 || strings.IndexByte(seg[:open], '}') >= 0 {
			return s, "has an unbalanced brace"
		}
		name := seg[open+1 : open+end]
		if name == "" || strings.ContainsAny(name, "{") {
			return s, "has an empty or nested parameter"
		}
		lit += seg[:open]
		if len(s.Params) > 0 && lit == "" {
			return s, "has two parameters with nothing between them, which no router can tell apart"
		}
		s.Literals = append(s.Literals, lit)
		s.Params = append(s.Params, name)
		lit = ""
		seg = seg[open+end+1:]
	}
	if strings.ContainsAny(lit, "{}") {
		return s, "has an unbalanced brace"
	}
	s.Literals = append(s.Literals, lit)
	return s, ""
}

// wildcardName reports whether name can name a wildcard as it is: a Go
// identifier (ServeMux's rule), which chi accepts too.
func wildcardName(name string) bool {
	for i, r := range name {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return name != ""
}

// routeConflicts mounts every operation's pattern on one ServeMux and
// reports those it refuses, such as two patterns that match the same
// requests with neither more specific (/a/{x} and /{y}/b).
func routeConflicts(ops []*ir.Operation, types []*OperationTypes) []refusal {
	byName := map[string]*spec.Operation{}
	for _, ot := range types {
		byName[ot.Name] = ot.Op
	}
	mux := http.NewServeMux()
	var out []refusal
	for _, op := range ops {
		if op.Route.MuxPattern == "" {
			continue // planRoute reported it
		}
		if err := mount(mux, op.Route.MuxPattern); err != nil {
			d := spec.Diagnostic{Pos: byName[op.Name].Pos, Severity: spec.SeverityError, Rule: RuleRoute,
				Message: op.Doc + " cannot be mounted beside the other operations: " + err.Error(),
				Hint:    "give the operations paths that no request matches both of"}
			out = append(out, refusal{d, byName[op.Name]})
		}
	}
	return out
}

// mount registers a placeholder at pattern, turning ServeMux's panic on a
// pattern it refuses into an error.
func mount(mux *http.ServeMux, pattern string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%v", v)
		}
	}()
	mux.Handle(pattern, http.NotFoundHandler())
	return nil
}
