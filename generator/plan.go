package generator

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/spec"
)

// Plan is everything one spec generates, decided once: the types, and for
// each supported annotated operation its names, contract, fingerprint and
// effects. Emitters read it and decide nothing.
type Plan struct {
	Doc        *spec.Document
	Types      *TypePlan
	Operations []*OperationPlan
	// Deferred lists the annotated operations not generated yet (phased
	// mode, webhooks), each with its position; the rest is generated.
	Deferred []spec.Diagnostic
}

// OperationPlan is one generated operation.
type OperationPlan struct {
	Types       *OperationTypes
	Contract    *spec.Contract
	Fingerprint *FingerprintPlan
	// PathParams are the names of the path parameters, sorted.
	PathParams []string
	// ReplayHeaders are the headers the success response documents; they
	// are stored and replayed besides Content-Type.
	ReplayHeaders []string
	// SuccessStatus is the status of a successful answer: the planned
	// response's, or the lowest documented 2xx.
	SuccessStatus int
	Effects       []EffectPlan
	// PathFields are the handle's fields that carry the path parameters.
	PathFields []PathField

	// The names of the operation's generated symbols.
	HandleType      string // the exported operation handle type
	ContractVar     string
	FingerprintFunc string
	DecodeFunc      string
	TypedFunc       string
	ChangeFunc      string
	// NaturalKey holds the natural-key pointers in contract order; empty
	// when the contract declares none.
	NaturalKey     []IncludePointer
	NaturalKeyFunc string
}

// PathField is a path parameter as a field of the operation handle.
type PathField struct {
	Param string
	Field string
}

// EffectPlan is one side effect with the name of its enqueuer method.
type EffectPlan struct {
	Name      string
	Method    string
	OnUnknown spec.OnUnknown
}

// Names of the package-level API every generated package declares; types
// planned from schemas never take them.
var reservedAPI = []string{"Handlers", "Route", "Routes", "Register", "GeneratorVersion"}

// PlanSpec plans one spec's operations. Reserved names (from other specs
// generated into the same package) are avoided.
func PlanSpec(doc *spec.Document, reserved []string) (*Plan, error) {
	p := &Plan{Doc: doc}
	var ops []*spec.Operation
	for _, op := range doc.Operations {
		if op.Contract == nil || len(op.Blocked) > 0 {
			continue
		}
		if reason := deferred(op); reason != "" {
			p.Deferred = append(p.Deferred, spec.Diagnostic{Pos: op.Pos, Severity: spec.SeverityWarning, Rule: "GEN001",
				Message: describe(op) + " is not generated: " + reason, Hint: "it is planned for a later idemgen release; the rest of the spec is generated"})
			continue
		}
		ops = append(ops, op)
	}
	types, err := PlanTypes(doc, ops, TypeOptions{Reserved: append(slices.Clone(reservedAPI), reserved...)})
	if err != nil {
		return nil, err
	}
	p.Types = types
	var errs spec.ErrorList
	for _, ot := range types.Operations {
		if ot.Unsupported != nil {
			p.Deferred = append(p.Deferred, spec.Diagnostic{Pos: ot.Unsupported.Pos, Severity: spec.SeverityWarning, Rule: "GEN002",
				Message: describe(ot.Op) + " is not generated: " + ot.Unsupported.Msg, Hint: "give the operation a JSON or form request body"})
			continue
		}
		op, fpErrs := planOperation(ot, types.Names)
		errs = append(errs, fpErrs...)
		p.Operations = append(p.Operations, op)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// deferred says why an operation is not generated yet, or "".
func deferred(op *spec.Operation) string {
	switch {
	case op.Webhook:
		return "webhook receivers come with the inbox"
	case op.Contract.Mode.Value == spec.ModePhased:
		return "phased mode comes with recovery points and leases"
	case op.Contract.Replay.Value == spec.ReplayCurrent:
		return "replay: current (answering retries with the resource's current state) is not supported yet; use replay: stored"
	}
	return ""
}

// describe names an operation as METHOD /path (operationId).
func describe(op *spec.Operation) string {
	s := op.Method + " " + op.Path
	if op.ID != "" {
		s += " (" + op.ID + ")"
	}
	return s
}

func planOperation(ot *OperationTypes, names *Namespace) (*OperationPlan, spec.ErrorList) {
	op := ot.Op
	p := &OperationPlan{Types: ot, Contract: op.Contract}
	p.HandleType = names.Unique(ot.Name+"Operation", "operation handle of "+describe(op), op.Pos)
	p.ContractVar = names.Unique("contract"+ot.Name, "contract of "+describe(op), op.Pos)
	p.FingerprintFunc = names.Unique("fingerprint"+ot.Name, "fingerprint of "+describe(op), op.Pos)
	p.DecodeFunc = names.Unique("decode"+ot.Name, "decoder of "+describe(op), op.Pos)
	p.TypedFunc = names.Unique("typed"+ot.Name, "typed operation of "+describe(op), op.Pos)
	p.ChangeFunc = names.Unique("change"+ot.Name, "significant change of "+describe(op), op.Pos)
	p.PathParams = pathParams(op)
	p.SuccessStatus, p.ReplayHeaders = success(op.Op, ot.Response)
	methods := NewNamespace()
	methods.Reserve("the operation handle", "Operation", "Header", "Enqueue", "ID", "Name", "Scope", "Key")
	for _, e := range op.Contract.Effects {
		p.Effects = append(p.Effects, EffectPlan{
			Name:      e.Name.Value,
			Method:    methods.Unique("Enqueue"+GoName(e.Name.Value), "effect "+e.Name.Value, e.Pos),
			OnUnknown: e.OnUnknown.Value,
		})
	}
	for _, name := range p.PathParams {
		p.PathFields = append(p.PathFields, PathField{Param: name, Field: methods.Unique(GoName(name), "path parameter "+name, op.Pos)})
	}
	var errs spec.ErrorList
	if ot.Request != nil {
		p.Fingerprint, errs = planFingerprint(op.Contract, ot.Request.Type)
		var nkErrs spec.ErrorList
		p.NaturalKey, nkErrs = includePointers(ot.Request.Type, op.Contract.NaturalKey, "x-idempotency.natural-key")
		errs = append(errs, nkErrs...)
		if len(p.NaturalKey) > 0 {
			p.NaturalKeyFunc = names.Unique("naturalKey"+ot.Name, "natural key of "+describe(op), op.Pos)
		}
	} else {
		p.Fingerprint = &FingerprintPlan{}
	}
	return p, errs
}

// pathParams returns the sorted names of an operation's path parameters,
// from the operation and its path item.
func pathParams(op *spec.Operation) []string {
	var out []string
	add := func(params openapi3.Parameters) {
		for _, ref := range params {
			if ref != nil && ref.Value != nil && ref.Value.In == openapi3.ParameterInPath && !slices.Contains(out, ref.Value.Name) {
				out = append(out, ref.Value.Name)
			}
		}
	}
	if op.Op != nil {
		add(op.Op.Parameters)
	}
	if op.PathItem != nil {
		add(op.PathItem.Parameters)
	}
	slices.Sort(out)
	return out
}

// success returns the status of a successful answer and the headers its
// response documents, sorted.
func success(op *openapi3.Operation, planned *BodyType) (int, []string) {
	status := 0
	if planned != nil {
		status = planned.Status
	}
	if status == 0 && op != nil && op.Responses != nil {
		var codes []int
		for code := range op.Responses.Map() {
			if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
				codes = append(codes, n)
			}
		}
		if len(codes) > 0 {
			status = slices.Min(codes)
		}
	}
	if status == 0 {
		status = 200
	}
	var headers []string
	if op != nil && op.Responses != nil {
		if r := op.Responses.Status(status); r != nil && r.Value != nil {
			for name := range r.Value.Headers {
				headers = append(headers, name)
			}
		}
	}
	slices.SortFunc(headers, cmp.Compare)
	return status, headers
}
