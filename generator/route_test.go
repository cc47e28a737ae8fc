package generator

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// TestPlanRoute checks the router patterns the planner gives, the segments
// it leaves for the generated code to take apart, and the paths it
// refuses.
func TestPlanRoute(t *testing.T) {
	for _, tc := range []struct {
		path, mux string
		segments  []ir.Segment
		err       string
	}{
		{path: "/orders/{id}", mux: "POST /orders/{id}"},
		{path: "/orders/", mux: "POST /orders/{$}"},
		{path: "/orders/{order-id}/cancel", mux: "POST /orders/{orderID}/cancel",
			segments: []ir.Segment{{Wildcard: "orderID", Params: []string{"order-id"}, Literals: []string{"", ""}}}},
		{path: "/a/{1st}/{first}", mux: "POST /a/{x1st}/{first}",
			segments: []ir.Segment{{Wildcard: "x1st", Params: []string{"1st"}, Literals: []string{"", ""}}}},
		{path: "/a/{a-b}/{aB}", mux: "POST /a/{aB}/{aB2}",
			segments: []ir.Segment{{Wildcard: "aB", Params: []string{"a-b"}, Literals: []string{"", ""}}, {Wildcard: "aB2", Params: []string{"aB"}, Literals: []string{"", ""}}}},
		{path: "/calls/{Sid}.json", mux: "POST /calls/{Sid}",
			segments: []ir.Segment{{Wildcard: "Sid", Params: []string{"Sid"}, Literals: []string{"", ".json"}}}},
		{path: "/v/x{a}-{b}", mux: "POST /v/{a}",
			segments: []ir.Segment{{Wildcard: "a", Params: []string{"a", "b"}, Literals: []string{"x", "-", ""}}}},
		{path: "/v/{a}{b}", err: "two parameters with nothing between them"},
		{path: "/files/*", err: "catch-all"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			op := &spec.Operation{Method: "POST", Path: tc.path, Pos: spec.Position{File: "s.yaml", Line: 3, Col: 5}}
			r, diags := planRoute(op)
			if tc.err != "" {
				if len(diags) != 1 || diags[0].Rule != RuleRoute || !strings.Contains(diags[0].Message, tc.err) || diags[0].Pos != op.Pos {
					t.Fatalf("diagnostics %v, want one %s at %s containing %q", diags, RuleRoute, op.Pos, tc.err)
				}
				return
			}
			if len(diags) > 0 {
				t.Fatalf("diagnostics %v", diags)
			}
			if r.MuxPattern != tc.mux {
				t.Errorf("pattern %q, want %q", r.MuxPattern, tc.mux)
			}
			if diff := cmp.Diff(tc.segments, r.Segments); diff != "" {
				t.Errorf("segments (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRouteConflicts checks that two operations no ServeMux can hold
// together are refused at the later one's position.
func TestRouteConflicts(t *testing.T) {
	var ops []*ir.Operation
	var types []*OperationTypes
	for i, p := range []string{"/a/{x}", "/{y}/b"} {
		op := &spec.Operation{Method: "PUT", Path: p, Pos: spec.Position{File: "s.yaml", Line: 10 * (i + 1), Col: 5}}
		r, _ := planRoute(op)
		name := GoName(p)
		ops = append(ops, &ir.Operation{Name: name, Doc: p, Route: r})
		types = append(types, &OperationTypes{Op: op, Name: name})
	}
	diags := routeConflicts(ops, types)
	if len(diags) != 1 || diags[0].Rule != RuleRoute || diags[0].Pos.Line != 20 {
		t.Fatalf("diagnostics %v, want one %s at line 20", diags, RuleRoute)
	}
}
