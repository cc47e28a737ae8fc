package generator

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// formMethod is the method every struct reached from a form body gets.
const formMethod = "DecodeForm"

// PlanTypes plans the Go types of the request and response bodies of ops,
// which belong to doc. The result depends only on the operations and their
// schemas, not on the order of ops. Errors (an operation name taken twice,
// an x-go-type that is not a Go type name) are *spec.Error values with
// positions, all of them in one spec.ErrorList.
func PlanTypes(doc *spec.Document, ops []*spec.Operation, opts TypeOptions) (*TypePlan, error) {
	p := planTypes(doc, ops, opts)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return p.plan, nil
}

// planTypes runs the type planner and returns it with its plan and its
// errors, sorted by position.
func planTypes(doc *spec.Document, ops []*spec.Operation, opts TypeOptions) *typePlanner {
	p := &typePlanner{
		doc:      doc,
		file:     doc.Path,
		opts:     opts,
		byRef:    map[string]*GoType{},
		building: map[string]bool{},
		open:     map[*TypeDecl]bool{},
		opNames:  NewNamespace(),
		rules:    map[*spec.Error]string{},
		errOps:   map[*spec.Error]*spec.Operation{},
		unions:   map[*GoType]*unionSource{},
		plan:     &TypePlan{Names: NewNamespace(), origins: map[any]origin{}},
	}
	p.plan.Names.Reserve("the caller", opts.Reserved...)
	sorted := slices.Clone(ops)
	slices.SortStableFunc(sorted, func(a, b *spec.Operation) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Method, b.Method), cmp.Compare(a.ID, b.ID))
	})
	for _, op := range sorted {
		found := len(p.errs)
		p.operation(op)
		for _, err := range p.errs[found:] {
			p.errOps[err] = op
		}
	}
	p.planUnions()
	p.name()
	p.markForm()
	p.markJSON()
	p.sharedFiles()
	p.pointerNullables()
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *spec.Error) int {
			if a.Pos.Before(b.Pos) {
				return -1
			}
			if b.Pos.Before(a.Pos) {
				return 1
			}
			return strings.Compare(a.Msg, b.Msg)
		})
	}
	p.canonical()
	return p
}

// typePlanner holds the state of one PlanTypes call.
type typePlanner struct {
	// doc is the document, whose component schemas effect payloads name.
	doc  *spec.Document
	file string
	opts TypeOptions
	plan *TypePlan
	errs spec.ErrorList
	// byRef maps the $ref of a component schema to its type, so
	// operations share it. The $ref, not the *openapi3.Schema, is the
	// identity: kin-openapi may resolve one $ref to several copies.
	byRef map[string]*GoType
	// building holds the component schemas being planned, to cut cycles.
	building map[string]bool
	// open holds the structs whose fields are being planned: a required
	// field of one of them is a cycle and becomes a pointer.
	open map[*TypeDecl]bool
	// opNames holds the operations' names.
	opNames *Namespace
	// rules holds the planner rule of each error that is not
	// RuleSchemaNotGo: two operations wanting one Go name, a pattern RE2
	// cannot compile, a form body that is not an object.
	rules map[*spec.Error]string
	// errOps holds the operation whose planning found each error; an
	// error found after every operation was planned (naming, unions), or
	// in a schema an earlier operation planned, is not another's.
	errOps map[*spec.Error]*spec.Operation
	// pending holds each declaration with the name it wants, in discovery
	// order; name assigns the final names.
	pending []*pendingDecl
	// unions holds the unions whose branches planUnions plans when a JSON
	// request body reaches them.
	unions map[*GoType]*unionSource
	// multipart holds the structs of multipart request bodies, in the
	// order their operations were planned, for sharedFiles.
	multipart []multipartBody
}

// pendingDecl is a declaration waiting for its final name.
type pendingDecl struct {
	decl *TypeDecl
	// parent and want make the wanted name, as in hint.
	parent *pendingDecl
	want   string
	// component is the $ref of a component schema; empty for inline ones.
	component string
	// fields holds the wanted Go name of each field, parallel to Fields.
	fields []string
}

func (p *typePlanner) errorf(pos spec.Position, msg string) {
	p.errs = append(p.errs, &spec.Error{Pos: pos, Msg: msg})
}

// operation plans the bodies of one operation.
func (p *typePlanner) operation(op *spec.Operation) {
	id := op.ID
	if id == "" {
		id = op.Method + " " + op.Path
	}
	where := op.Method + " " + op.Path
	if op.ID != "" {
		where = op.ID + " (" + where + ")"
	}
	name, err := p.opNames.Claim(GoName(id), "operation "+where, op.Pos)
	if err != nil {
		p.errs = append(p.errs, err.(*spec.Error))
		p.rules[err.(*spec.Error)] = RuleNameCollision
	}
	ot := &OperationTypes{Op: op, Name: name}
	p.plan.Operations = append(p.plan.Operations, ot)
	if op.Op == nil {
		return
	}
	var pathParams openapi3.Parameters
	if op.PathItem != nil {
		pathParams = op.PathItem.Parameters
	}
	ot.Params = p.params(pathParams, op.Op.Parameters)
	if rb := op.Op.RequestBody; rb != nil && rb.Value != nil && len(rb.Value.Content) > 0 {
		key, kind, m := spec.PickMedia(rb.Value.Content, MediaJSON, MediaForm, MediaMultipart)
		if m == nil {
			keys := slices.Sorted(maps.Keys(rb.Value.Content))
			ot.Unsupported = &spec.Error{Pos: p.pos(rb.Value.Origin, op.Pos), Path: "requestBody",
				Msg: "the request body of " + where + " is " + strings.Join(keys, ", ") + ": only JSON (application/json, application/*+json), application/x-www-form-urlencoded and multipart/form-data bodies are generated, so the operation would get no handler"}
		} else {
			var accept []string
			for _, k := range slices.Sorted(maps.Keys(rb.Value.Content)) {
				if spec.MediaKind(k) == kind {
					accept = append(accept, k)
				}
			}
			ot.Request = &BodyType{
				MediaType:   kind,
				ContentType: key,
				Accept:      accept,
				Required:    rb.Value.Required,
				Type:        p.typeOf(m.Schema, hint{name: GoName(id) + "Body", source: "request body of " + where, owner: op}),
			}
			if t := ot.Request.Type; ir.FormLike(kind) && (t.Kind != TypeDeclared || t.Decl.Kind != DeclStruct) {
				p.errorf(p.pos(m.Origin, op.Pos), "the form request body of "+where+" is not an object with properties: only those decode from a form, so the operation would get no handler")
				p.rules[p.errs[len(p.errs)-1]] = RuleUnsupportedBody
			} else if kind == MediaMultipart {
				p.files(t.Decl, op, where)
			}
		}
	}
	ot.Responses = p.responses(op, id, where)
	ot.Payloads = p.payloads(op)
	ot.Outputs = p.outputs(op)
}

// outputs plans the types of a phased operation's step outputs: each
// names a component schema, which the output shares with every other use.
// References spec rule IDEM039 refuses are left out.
func (p *typePlanner) outputs(op *spec.Operation) map[string]*GoType {
	if op.Contract == nil || p.doc == nil || p.doc.OpenAPI == nil || p.doc.OpenAPI.Components == nil {
		return nil
	}
	out := map[string]*GoType{}
	for _, s := range op.Contract.Steps {
		if t := p.componentRef(s.Output); t != nil {
			out[s.Name.Value] = t
		}
	}
	return out
}

// componentRef plans the type of the component schema ref names, nil when it
// names none.
func (p *typePlanner) componentRef(ref spec.Field[string]) *GoType {
	name, ok := strings.CutPrefix(ref.Value, componentPrefix)
	if !ref.Set || !ok {
		return nil
	}
	if s := p.doc.OpenAPI.Components.Schemas[name]; s != nil && s.Value != nil {
		return p.typeOf(&openapi3.SchemaRef{Ref: ref.Value, Value: s.Value}, hint{})
	}
	return nil
}

// payloads plans the types of an operation's effect payloads: each names
// a component schema, which the payload shares with every other use.
// References spec rule IDEM027 refuses are left out.
func (p *typePlanner) payloads(op *spec.Operation) map[string]*GoType {
	if op.Contract == nil || p.doc == nil || p.doc.OpenAPI == nil || p.doc.OpenAPI.Components == nil {
		return nil
	}
	out := map[string]*GoType{}
	for _, e := range op.Contract.Effects {
		if t := p.componentRef(e.Payload); t != nil {
			out[e.Name.Value] = t
		}
	}
	return out
}

// responses plans the documented responses of an operation: the JSON body
// of each, named after the operation and the status (CreateOrder201Body)
// when it is inline.
func (p *typePlanner) responses(op *spec.Operation, id, where string) []*ResponseTypes {
	if op.Op.Responses == nil {
		return nil
	}
	codes := op.Op.Responses.Keys()
	slices.SortFunc(codes, compareCodes)
	var out []*ResponseTypes
	for _, code := range codes {
		r := op.Op.Responses.Value(code)
		if r == nil || r.Value == nil {
			continue
		}
		rt := &ResponseTypes{Code: code, Response: r.Value}
		status, _ := strconv.Atoi(code)
		if key, _, m := spec.PickMedia(r.Value.Content, MediaJSON); m != nil {
			rt.Body = &BodyType{
				MediaType:   MediaJSON,
				ContentType: key,
				Status:      status,
				Type:        p.typeOf(m.Schema, hint{name: GoName(id) + codeName(code) + "Body", source: code + " response body of " + where, owner: op}),
			}
		} else if len(r.Value.Content) > 0 {
			rt.Raw = slices.Sorted(maps.Keys(r.Value.Content))[0]
		}
		out = append(out, rt)
	}
	return out
}

// compareCodes orders response codes: exact statuses by number, then
// ranges (4XX), then default.
func compareCodes(a, b string) int {
	rank := func(code string) (int, string) {
		switch {
		case code == "default":
			return 2, code
		case strings.HasSuffix(strings.ToUpper(code), "XX"):
			return 1, strings.ToUpper(code)
		}
		return 0, code
	}
	ra, ka := rank(a)
	rb, kb := rank(b)
	return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(len(ka), len(kb)), cmp.Compare(ka, kb))
}

// codeName is a response code as part of a Go name: 201, 4XX, Default.
func codeName(code string) string {
	if code == "default" {
		return "Default"
	}
	return strings.ToUpper(code)
}

// hint is what an inline schema is named after.
type hint struct {
	// parent is the declaration the schema is inside; nil for a body or a
	// component. The schema's type wants the parent's final name followed
	// by name, so CreateOrderRequest renamed to CreateOrderRequest2 has a
	// CreateOrderRequest2Delivery.
	parent *pendingDecl
	// name is the Go name the schema's type wants, after the parent's.
	name string
	// source describes the schema for doc comments.
	source string
	owner  *spec.Operation
	// component is the $ref of a component schema being planned; children
	// of it are inline and have none.
	component string
}

// child is the hint of a schema inside the one h names that has no
// declaration of its own in between (an array's items, a map's values).
func (h hint) child(name, what string) hint {
	return hint{parent: h.parent, name: h.name + name, source: what + " of the " + h.source, owner: h.owner}
}

// property is the hint of a property of the struct pd declares.
func (h hint) property(pd *pendingDecl, name string) hint {
	return hint{parent: pd, name: GoName(name), source: "property " + name + " of the " + h.source, owner: h.owner}
}

// pos returns the position an origin records, or fallback.
func (p *typePlanner) pos(o *openapi3.Origin, fallback spec.Position) spec.Position {
	if o == nil || o.Key == nil {
		if fallback.File == "" {
			fallback.File = p.file
		}
		return fallback
	}
	file := o.Key.File
	if file == "" {
		file = p.file
	}
	return spec.Position{File: file, Line: o.Key.Line, Col: o.Key.Column}
}

// zeroPos is the position of a schema whose origin is unknown: the file.
func (p *typePlanner) zeroPos() spec.Position {
	return spec.Position{File: p.file}
}

// propertyPos is where a property is declared: its own origin, else the
// origin of the schema it refers to, else the struct's position.
func (p *typePlanner) propertyPos(ref *openapi3.SchemaRef, fallback spec.Position) spec.Position {
	if ref.Origin != nil && ref.Origin.Key != nil {
		return p.pos(ref.Origin, fallback)
	}
	if ref.Value != nil {
		return p.pos(ref.Value.Origin, fallback)
	}
	return fallback
}

// componentPrefix starts the $ref of a schema under components.
const componentPrefix = "#/components/schemas/"
