package spec

// The rule on scope: an API with authentication is multi-tenant until the
// contract says otherwise.

var ruleEmptyScope = Rule{
	ID:       "IDEM007",
	Name:     "empty-scope-with-security",
	Severity: SeverityError,
	Summary:  "an empty scope on an API that declares security schemes",
	check: func(r *ruleRun) {
		if r.c == nil || len(r.c.Scope.Value) > 0 || !declaresSecurity(r.doc) {
			return
		}
		if r.op.Op != nil && r.op.Op.Security != nil && len(*r.op.Op.Security) == 0 {
			return // the operation is explicitly public: security: []
		}
		r.report(r.c.Scope.Pos, "x-idempotency.scope",
			"scope is empty on an API that declares security schemes: keys are global, so one client's key can match another client's operation and replay its response",
			"set scope to the principal attributes that separate tenants, such as scope: [tenant]")
	},
}

// declaresSecurity reports whether the document declares any security
// scheme.
func declaresSecurity(doc *Document) bool {
	return doc.OpenAPI != nil && doc.OpenAPI.Components != nil && len(doc.OpenAPI.Components.SecuritySchemes) > 0
}
