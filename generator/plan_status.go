package generator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// planStatuses plans the status routes among statusOps (operations with
// an x-idempotency-status block that the spec's rules find no error in),
// each telling the attempts of one of the planned operations ops, sorted
// by path. A route whose target is not planned, or that cannot be
// mounted, is refused.
func planStatuses(statusOps []*spec.Operation, ops []*ir.Operation, names *Namespace) ([]*ir.StatusRoute, []refusal) {
	var routes []*ir.StatusRoute
	var refusals []refusal
	for _, op := range statusOps {
		s := op.Status
		var target *ir.Operation
		for _, t := range ops {
			if t.Contract.Operation == s.Operation.Value {
				target = t
			}
		}
		if target == nil {
			refusals = append(refusals, refusal{spec.Diagnostic{Pos: s.Operation.Pos, Severity: spec.SeverityError, Rule: RuleRoute,
				Path: "x-idempotency-status.operation", Message: fmt.Sprintf("%s is not generated, so %s has no attempts to tell", s.Operation.Value, describe(op)),
				Hint: "fix what keeps the operation from being generated"}, op})
			continue
		}
		route, diags := planRoute(op)
		for _, d := range diags {
			refusals = append(refusals, refusal{d, op})
		}
		name := GoName(op.ID)
		r := &ir.StatusRoute{
			Doc:    where(op),
			Target: target,
			Contract: ir.StatusContract{Operation: s.Operation.Value, Method: op.Method, Route: op.Path,
				Parameter: s.Parameter.Value, MaxLength: target.Contract.Key.MaxLength},
			Route:       route,
			ContractVar: names.Unique("status"+name, "status contract of "+describe(op), op.Pos),
			MountVar:    names.Unique("mount"+name, "mount of "+describe(op), op.Pos),
			Test:        "TestStatus" + name,
		}
		if len(route.Segments) > 0 {
			r.PathValuesFunc = names.Unique("pathValues"+name, "path values of "+describe(op), op.Pos)
		}
		routes = append(routes, r)
	}
	slices.SortFunc(routes, func(a, b *ir.StatusRoute) int {
		return cmp.Or(strings.Compare(a.Contract.Route, b.Contract.Route), strings.Compare(a.Contract.Method, b.Contract.Method))
	})
	return routes, refusals
}
