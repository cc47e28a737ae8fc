package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// The rule on status routes: a route that tells clients what became of
// their attempts must name a protected operation, carry the key in its
// path and be reached through the same authentication as the operation,
// the source of the trusted scope the key is looked up in.

var ruleStatusRoute = Rule{
	ID:       "IDEM040",
	Name:     "status-route-unusable",
	Severity: SeverityError,
	Summary:  "an x-idempotency-status route that cannot tell the attempts of its operation",
	check: func(r *ruleRun) {
		s := r.op.Status
		if s == nil {
			return
		}
		const path = "x-idempotency-status"
		switch {
		case r.c != nil:
			r.report(s.Pos, path, fmt.Sprintf("%s is both protected (x-idempotency) and a status route", r.opName()),
				"a status route runs nothing: keep x-idempotency on the operation whose attempts it tells")
		case r.op.Method != "GET":
			r.report(s.Pos, path, fmt.Sprintf("status route %s is %s; a lookup that changes nothing is a GET", r.opName(), r.op.Method),
				"declare the status route under get:")
		case r.op.ID == "":
			r.report(s.Pos, path, fmt.Sprintf("status route %s has no operationId", r.opName()),
				"give it an operationId such as getOrderAttempt: its generated names come from it")
		}
		if !slices.Contains(strings.Split(r.op.Path, "/"), "{"+s.Parameter.Value+"}") {
			r.report(s.Parameter.Pos, path+".parameter",
				fmt.Sprintf("the path %s has no segment {%s} to carry the key", r.op.Path, s.Parameter.Value),
				fmt.Sprintf("end the path with /{%s}, or name the path parameter that carries the key in parameter:", s.Parameter.Value))
		}
		target := r.statusTarget(s)
		if target == nil {
			return
		}
		if want, got := securityOf(r.doc, target), securityOf(r.doc, r.op); want != got {
			r.report(s.Pos, path, fmt.Sprintf("status route %s is reached with security %s, %s with %s: the key is looked up in %s's trusted scope, which comes from that authentication",
				r.opName(), got, target.ID, want, target.ID),
				fmt.Sprintf("give the status route the security of %s", target.ID))
		}
	},
}

// statusTarget returns the operation the status route s tells, reporting
// why there is none it can tell.
func (r *ruleRun) statusTarget(s *StatusRoute) *Operation {
	const path = "x-idempotency-status.operation"
	var ids []string
	for _, op := range r.doc.Operations {
		if op.ID == s.Operation.Value {
			switch {
			case op.Contract == nil:
				r.report(s.Operation.Pos, path, fmt.Sprintf("%s has no x-idempotency block: it keeps no attempts to tell", op.ID),
					"protect the operation with x-idempotency, or name one that is")
				return nil
			case op.Webhook:
				r.report(s.Operation.Pos, path, fmt.Sprintf("%s is a webhook, which is not generated", op.ID),
					"name an operation under paths")
				return nil
			}
			return op
		}
		if op.ID != "" && op.Contract != nil {
			ids = append(ids, op.ID)
		}
	}
	r.report(s.Operation.Pos, path, fmt.Sprintf("no operation has the operationId %q%s", s.Operation.Value, didYouMean(s.Operation.Value, ids)),
		"name the operationId of a protected operation")
	return nil
}

// securityOf renders the security requirements op is reached with (its
// own, or the document's), sorted, for comparison and messages.
func securityOf(doc *Document, op *Operation) string {
	var reqs openapi3.SecurityRequirements
	switch {
	case op.Op != nil && op.Op.Security != nil:
		reqs = *op.Op.Security
	case doc.OpenAPI != nil:
		reqs = doc.OpenAPI.Security
	}
	var alts []string
	for _, req := range reqs {
		names := make([]string, 0, len(req))
		for name := range req {
			names = append(names, name)
		}
		slices.Sort(names)
		alts = append(alts, strings.Join(names, "+"))
	}
	slices.Sort(alts)
	if len(alts) == 0 {
		return "(none)"
	}
	return "[" + strings.Join(alts, ", ") + "]"
}
