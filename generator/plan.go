package generator

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// Plan is one spec planned: the type plan and the frozen program the
// emitters print, with every decision taken but those of Generate's
// options (the package name, the version, the files), which Generate sets
// on a copy. Judge makes it; nothing else plans.
type Plan struct {
	Doc     *spec.Document
	Types   *TypePlan
	Program *ir.Program
}

// Names of the package-level API every generated package declares; types
// planned from schemas never take them.
var reservedAPI = []string{"Handlers", unimplementedHandlers, "Route", "Routes", "Register", "GeneratorVersion", "SecretFields"}

// unimplementedHandlers is the type a service embeds to implement the
// operations one at a time.
const unimplementedHandlers = "UnimplementedHandlers"

// planSpec plans the annotated operations ops of doc, which the spec's
// own rules find no error in, into a program. Every reason it cannot
// generate one of them is a refusal at error severity with one of the
// planner's rules (verdict.go); with any, the plan is nil. What Generate's
// options decide (the package name, the version, the files) is left to
// Generate.
func planSpec(doc *spec.Document, ops []*spec.Operation) (*Plan, []refusal) {
	var refusals []refusal
	var planned, statusOps []*spec.Operation
	for _, op := range ops {
		if op.Status != nil {
			statusOps = append(statusOps, op)
			continue
		}
		for _, d := range unbuilt(op) {
			refusals = append(refusals, refusal{d, op})
		}
		// Every operation is planned for every refusal at once.
		planned = append(planned, op)
	}
	tp := planTypes(doc, planned, TypeOptions{Reserved: slices.Clone(reservedAPI)})
	for _, err := range tp.errs {
		rule := cmp.Or(tp.rules[err], RuleSchemaNotGo)
		refusals = append(refusals, refusal{errorDiagnostic(rule, err, ruleHints[rule]), tp.errOps[err]})
	}
	types := tp.plan
	prog := &ir.Program{
		GeneratedCodeVersion: generatedCodeVersion,
		Types:                types.Decls,
		Unimplemented:        unimplementedHandlers,
		Patterns:             types.Patterns,
		SecretFields:         doc.SecretFields(),
	}
	for _, ot := range types.Operations {
		if ot.Unsupported != nil {
			refusals = append(refusals, refusal{errorDiagnostic(RuleUnsupportedBody, ot.Unsupported, "offer the body as application/json too, or leave x-idempotency off the operation"), ot.Op})
			continue
		}
		if ot.Op.Webhook {
			prog.Webhooks = append(prog.Webhooks, planWebhook(ot, types))
			continue
		}
		op, diags := planOperation(ot, types)
		for _, d := range diags {
			refusals = append(refusals, refusal{d, ot.Op})
		}
		prog.Operations = append(prog.Operations, op)
	}
	refusals = append(refusals, routeConflicts(prog.Operations, types.Operations)...)
	statuses, statusRefusals := planStatuses(statusOps, prog.Operations, types.Names)
	prog.Statuses, refusals = statuses, append(refusals, statusRefusals...)
	if len(refusals) > 0 {
		return nil, refusals
	}
	nameWalkers(prog, types.Names)
	planProviders(prog, types)
	return &Plan{Doc: doc, Types: types, Program: prog}, nil
}

// errorDiagnostic turns a planner error into a diagnostic of rule.
func errorDiagnostic(rule string, err *spec.Error, hint string) spec.Diagnostic {
	return spec.Diagnostic{Pos: err.Pos, Severity: spec.SeverityError, Rule: rule, Path: err.Path, Message: err.Msg, Hint: hint}
}

// describe names an operation as METHOD /path (operationId).
func describe(op *spec.Operation) string {
	s := op.Method + " " + op.Path
	if op.ID != "" {
		s += " (" + op.ID + ")"
	}
	return s
}

// where names an operation in doc comments: operationId (METHOD /path).
func where(op *spec.Operation) string {
	if op.ID == "" {
		return commentText(op.Method + " " + op.Path)
	}
	return commentText(op.ID + " (" + op.Method + " " + op.Path + ")")
}

func planOperation(ot *OperationTypes, types *TypePlan) (*ir.Operation, []spec.Diagnostic) {
	op, names := ot.Op, types.Names
	p := &ir.Operation{Name: ot.Name, Doc: where(op), Request: ot.Request}
	p.HandleType = names.Unique(ot.Name+"Operation", "operation handle of "+describe(op), op.Pos)
	p.ContractVar = names.Unique("contract"+ot.Name, "contract of "+describe(op), op.Pos)
	p.FingerprintFunc = names.Unique("fingerprint"+ot.Name, "fingerprint of "+describe(op), op.Pos)
	p.TypedFunc = names.Unique("typed"+ot.Name, "typed operation of "+describe(op), op.Pos)
	changeFunc := names.Unique("change"+ot.Name, "significant change of "+describe(op), op.Pos)
	params := pathParams(op)
	keyHeader := ""
	if op.Contract.Key.In.Value != spec.KeyInBody {
		keyHeader = op.Contract.Key.Name.Value
	}
	planRequest(p, op, ot.Name, keyHeader, names)
	planResponses(p, ot, names)
	methods := NewNamespace()
	methods.Reserve("the operation handle", "ID", "Scope", "Key")
	for _, e := range op.Contract.Effects {
		p.Effects = append(p.Effects, ir.Effect{
			Name:      e.Name.Value,
			Method:    methods.Unique("Enqueue"+GoName(e.Name.Value), "effect "+e.Name.Value, e.Pos),
			OnUnknown: string(e.OnUnknown.Value),
			Payload:   ot.Payloads[e.Name.Value],
		})
	}
	var diags []spec.Diagnostic
	route, routeDiags := planRoute(op)
	diags = append(diags, routeDiags...)
	p.Route = route
	p.MountVar = names.Unique("mount"+ot.Name, "mount of "+describe(op), op.Pos)
	if len(route.Segments) > 0 {
		p.PathValuesFunc = names.Unique("pathValues"+ot.Name, "path values of "+describe(op), op.Pos)
	}
	if ot.Request != nil {
		fp, fpErrs := planFingerprint(op.Contract, ot.Request.Type)
		key, keyErrs := includePointers(ot.Request.Type, op.Contract.NaturalKey, "natural-key")
		p.Fingerprint, p.NaturalKey = fp, key
		for _, err := range slices.Concat(fpErrs, keyErrs) {
			diags = append(diags, errorDiagnostic(RulePointerNotWalkable, err, pointerHint))
		}
		if len(p.NaturalKey) > 0 {
			p.NaturalKeyFunc = names.Unique("naturalKey"+ot.Name, "natural key of "+describe(op), op.Pos)
		}
	}
	p.Contract = planContract(op, params, ot.Request)
	if op.Contract.Mode.Value == spec.ModePhased {
		p.Phased = planPhased(p, ot, names)
	}
	if p.Contract.ReplayCurrent {
		p.CurrentMethod = names.Unique("Current"+ot.Name, "current replay of "+describe(op), op.Pos)
	}
	checkParams(p.Params, ot.Params)
	p.Tests = ir.Tests{
		Contract:    "TestContract" + ot.Name,
		Fingerprint: "TestFingerprint" + ot.Name,
		NaturalKey:  len(op.Contract.NaturalKey) > 0 || len(params) > 0,
	}
	if ot.Request != nil {
		if p.Tests.Change = changeTarget(ot.Request.Type, p.Fingerprint); p.Tests.Change != nil {
			p.Tests.ChangeFunc = changeFunc
		}
	}
	return p, diags
}

// changeTarget picks the field the contract tests change to get a request
// that fingerprints differently: a required top-level scalar that the
// fingerprint covers and whose change the schema still accepts. Nil when
// there is none.
func changeTarget(t *GoType, fp ir.Fingerprint) *StructField {
	if t.Kind != TypeDeclared || t.Decl.Kind != DeclStruct {
		return nil
	}
	significant := func(f *StructField) bool {
		for _, ex := range fp.Exclude {
			if len(ex) == 1 && (ex[0] == f.JSONName || ex[0] == ir.Wildcard) {
				return false
			}
		}
		if len(fp.Include) == 0 {
			return true
		}
		for _, inc := range fp.Include {
			if len(inc.Segments) > 0 && inc.Segments[0] == f.JSONName {
				return true
			}
		}
		return false
	}
	for _, f := range t.Decl.Canonical {
		if !f.Required || !significant(f) || !changeKeepsValid(f.Type) {
			continue
		}
		switch f.Type.Kind {
		case TypeString, TypeInt32, TypeInt64, TypeFloat64, TypeBool, TypeTime:
			return f
		case TypeDeclared:
			if f.Type.Decl.Kind == DeclEnum && len(f.Type.Decl.Consts) >= 2 {
				return f
			}
		}
	}
	return nil
}

// changeKeepsValid reports whether the contract tests' change of a value
// of t (a suffix on a string, or one of two strings of its minimum length
// when it has a maximum; one more on a number) stays within its schema's
// checks, so that the changed request reaches the fingerprint
// instead of a 400.
func changeKeepsValid(t *GoType) bool {
	c := t.Checks
	if c == nil {
		return true
	}
	switch t.Kind {
	case TypeString:
		return c.Pattern == nil && c.Format == "" && c.Strings == nil && (c.MaxLength == nil || *c.MaxLength >= max(1, minLength(c)))
	case TypeInt32, TypeInt64, TypeFloat64:
		return c.Maximum == nil && c.MultipleOf == nil && c.Numbers == nil
	}
	return true
}

// minLength is the minimum length of c; 0 without one.
func minLength(c *Checks) int {
	if c.MinLength == nil {
		return 0
	}
	return *c.MinLength
}

// nameWalkers names the shared fingerprint walker of every struct a
// request body reaches, after every other name of the package, so a
// walker never takes a name an operation's symbols want.
func nameWalkers(prog *ir.Program, names *Namespace) {
	seen := map[*TypeDecl]bool{}
	var visit func(t *GoType)
	visit = func(t *GoType) {
		switch {
		case t == nil:
		case t.Elem != nil:
			visit(t.Elem)
		case t.Kind == TypeDeclared && t.Decl.Kind == DeclStruct && !seen[t.Decl]:
			seen[t.Decl] = true
			for _, f := range t.Decl.Fields {
				visit(f.Type)
			}
		}
	}
	for _, op := range prog.Operations {
		if op.Request != nil {
			visit(op.Request.Type)
		}
	}
	for _, d := range prog.Types {
		if seen[d] {
			d.Walker = names.Unique("fingerprint"+d.Name, "fingerprint walker of "+d.Name, spec.Position{})
		}
	}
}

// goFiles lists the Go files of a package generated from doc.
func goFiles(doc *spec.Document, opts Options, effects, decoders bool) []ir.File {
	base := specBase(doc.Path)
	files := []ir.File{
		{Path: path.Join(opts.GoDir, "idemgen.go"), Kind: ir.FileVersion},
		{Path: path.Join(opts.GoDir, base+"_types.go"), Kind: ir.FileTypes},
		{Path: path.Join(opts.GoDir, base+"_operations.go"), Kind: ir.FileOperations},
	}
	if opts.Tests {
		files = append(files, ir.File{Path: path.Join(opts.GoDir, base+"_contract_test.go"), Kind: ir.FileContractTests})
	}
	if effects {
		files = append(files, ir.File{Path: path.Join(opts.GoDir, base+"_effects.go"), Kind: ir.FileEffects})
	}
	if decoders {
		files = append(files, ir.File{Path: path.Join(opts.GoDir, base+"_decoders.go"), Kind: ir.FileDecoders})
	}
	slices.SortFunc(files, func(a, b ir.File) int { return cmp.Compare(a.Path, b.Path) })
	return files
}

// checkParams sets on each parameter of a typed request the checks of the
// scalar parameter of the same place and name (a header's name in any
// case), so that the request's decoder reports its violations, with the
// body's when it has one, and sets its field from the value the check
// reads when that is the field's.
func checkParams(params []ir.Param, checks []*ParamCheck) {
	for i := range params {
		for _, c := range checks {
			if c.In == params[i].In && (c.Name == params[i].Name || c.In == ir.InHeader && strings.EqualFold(c.Name, params[i].Name)) {
				params[i].Checked = c.Type
			}
		}
		if t, c := params[i].Type, params[i].Checked; c != nil {
			if t.Kind == TypePointer {
				t = t.Elem
			}
			params[i].FromCheck = t.Kind == c.Kind
		}
	}
}
