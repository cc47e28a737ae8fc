package generator

import (
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/spec"
)

// idemimplImport is the runtime's face for generated code: every runtime
// name but those services see in signatures (Executor, ScopeFunc), which
// come from idemImport.
const idemimplImport = "github.com/idemgen/idemgen/runtime/idemimpl"

// The import paths generated operations refer to.
const (
	idemImport    = "github.com/idemgen/idemgen/runtime/idem"
	pgxImport     = "github.com/jackc/pgx/v5"
	contextImport = "context"
	httpImport    = "net/http"
	urlImport     = "net/url"
	fmtImport     = "fmt"
)

// emitOperations adds, for every operation of plan, its run-time contract,
// decoder, typed fingerprint and operation handle, then the Handlers
// interface and the routes.
func emitOperations(f *jen.File, plan *Plan) {
	fps := newFingerprintEmitter(plan.Types.Names)
	for _, op := range plan.Operations {
		emitContract(f, op)
		emitHandle(f, op)
		if op.Types.Request != nil {
			emitDecode(f, op)
		}
		emitFingerprint(f, op, fps)
		if op.NaturalKeyFunc != "" {
			emitNaturalKey(f, op, fps)
		}
	}
	fps.emitWalkers(f)
	emitHandlers(f, plan)
	emitRoutes(f, plan)
}

// where names an operation in doc comments: operationId and METHOD /path.
func where(op *OperationPlan) string {
	o := op.Types.Op
	if o.ID == "" {
		return o.Method + " " + o.Path
	}
	return o.ID + " (" + o.Method + " " + o.Path + ")"
}

func emitContract(f *jen.File, op *OperationPlan) {
	c := op.Contract
	key := jen.Dict{jen.Id("MaxLength"): jen.Lit(c.Key.MaxLength.Value)}
	if !c.Key.Required.Value {
		key[jen.Id("Optional")] = jen.True()
	}
	if c.Key.In.Value == spec.KeyInBody {
		key[jen.Id("BodyPointer")] = jen.Lit(c.Key.Name.Value)
	} else {
		key[jen.Id("Header")] = jen.Lit(c.Key.Name.Value)
	}
	fp := jen.Dict{}
	for _, l := range []struct {
		name   string
		fields []spec.Field[string]
	}{{"Include", c.Fingerprint.Include}, {"Exclude", c.Fingerprint.Exclude}, {"Unordered", c.Fingerprint.Unordered}} {
		if len(l.fields) > 0 {
			fp[jen.Id(l.name)] = stringSlice(fieldValues(l.fields))
		}
	}
	concurrency := "ConcurrencyWait"
	if c.Concurrency.Value == spec.ConcurrencyReject {
		concurrency = "ConcurrencyReject"
	}
	var failures []jen.Code
	for _, s := range c.StoreFailures.Value {
		if s == "4xx" {
			failures = append(failures, jen.Values(jen.Dict{jen.Id("Class"): jen.Lit(4)}))
		} else {
			n, _ := strconv.Atoi(s)
			failures = append(failures, jen.Values(jen.Dict{jen.Id("Status"): jen.Lit(n)}))
		}
	}
	fields := jen.Dict{
		jen.Id("Operation"):   jen.Lit(op.Types.Op.ID),
		jen.Id("Method"):      jen.Lit(op.Types.Op.Method),
		jen.Id("Route"):       jen.Lit(op.Types.Op.Path),
		jen.Id("Key"):         jen.Qual(idemimplImport, "KeySpec").Values(key),
		jen.Id("Fingerprint"): jen.Qual(fingerprintImport, "Spec").Values(fp),
		jen.Id("Retention"):   duration(c.Retention.Value),
		jen.Id("Tombstone"):   duration(c.Tombstone.Value),
		jen.Id("Concurrency"): jen.Qual(idemimplImport, concurrency),
		jen.Id("WaitTimeout"): duration(c.WaitTimeout.Value),
	}
	if len(op.PathParams) > 0 {
		fields[jen.Id("PathParams")] = stringSlice(op.PathParams)
	}
	if len(failures) > 0 {
		fields[jen.Id("StoreFailures")] = jen.Index().Qual(idemimplImport, "StatusClass").Values(failures...)
	} else {
		fields[jen.Id("StoreNoFailures")] = jen.True() // an empty StoreFailures is the default, every 4xx
	}
	if len(op.ReplayHeaders) > 0 {
		fields[jen.Id("ReplayHeaders")] = stringSlice(op.ReplayHeaders)
	}
	f.Commentf("%s is the run-time contract of %s.", op.ContractVar, where(op))
	f.Var().Id(op.ContractVar).Op("=").Qual(idemimplImport, "Contract").Values(fields)
}

func fieldValues(fields []spec.Field[string]) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Value
	}
	return out
}

func stringSlice(values []string) jen.Code {
	lits := make([]jen.Code, len(values))
	for i, v := range values {
		lits[i] = jen.Lit(v)
	}
	return jen.Index().String().Values(lits...)
}

// duration writes d in the largest unit that divides it: 72 * time.Hour.
func duration(d time.Duration) jen.Code {
	units := []struct {
		name string
		d    time.Duration
	}{{"Hour", time.Hour}, {"Minute", time.Minute}, {"Second", time.Second}, {"Millisecond", time.Millisecond}}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			return jen.Lit(int(d/u.d)).Op("*").Qual(timeImport, u.name)
		}
	}
	return jen.Qual(timeImport, "Duration").Call(jen.Lit(int64(d)))
}

// emitHandle declares the operation handle the business method receives,
// with one enqueuer per effect.
func emitHandle(f *jen.File, op *OperationPlan) {
	f.Commentf("%s is what the business method of %s gets besides the request: the operation's id, scope and key, the response headers to send, and one enqueuer per side effect of the contract.", op.HandleType, where(op))
	fields := []jen.Code{
		jen.Op("*").Qual(idemimplImport, "Operation"),
		jen.Comment("Header holds response headers to send; those the contract replays are stored with the response."),
		jen.Id("Header").Qual(httpImport, "Header"),
	}
	for _, pf := range op.PathFields {
		fields = append(fields, jen.Commentf("%s is the path parameter %s.", pf.Field, pf.Param), jen.Id(pf.Field).String())
	}
	fields = append(fields, jen.Id("tx").Qual(pgxImport, "Tx"))
	f.Type().Id(op.HandleType).Struct(fields...)
	for _, e := range op.Effects {
		f.Commentf("%s writes the %s effect to the outbox in the operation's transaction, so it exists exactly when the operation commits, and returns its key, which is stable across retries; when its outcome is unknown the policy is %q.", e.Method, e.Name, string(e.OnUnknown))
		f.Func().Params(jen.Id("o").Op("*").Id(op.HandleType)).Id(e.Method).Params(
			jen.Id("ctx").Qual(contextImport, "Context"),
			jen.Id("payload").Index().Byte(),
		).Params(jen.String(), jen.Error()).Block(
			jen.Return(jen.Id("o").Dot("Enqueue").Call(jen.Id("ctx"), jen.Id("o").Dot("tx"), jen.Qual(idemimplImport, "Effect").Values(jen.Dict{
				jen.Id("Name"):      jen.Lit(e.Name),
				jen.Id("OnUnknown"): jen.Lit(string(e.OnUnknown)),
				jen.Id("Payload"):   jen.Id("payload"),
			}))),
		)
	}
}

// emitDecode declares the function that decodes the request body into its
// typed form: strict JSON (the same texts the fingerprint accepts) or a
// form.
func emitDecode(f *jen.File, op *OperationPlan) {
	req := op.Types.Request
	t := req.Type.Code()
	bad := func(err jen.Code) jen.Code {
		return jen.Return(jen.Nil(), jen.Qual(fmtImport, "Errorf").Call(jen.Lit("%w: %v"), jen.Qual(idemimplImport, "ErrInvalidBody"), err))
	}
	var body []jen.Code
	body = append(body, jen.Var().Id("v").Add(t))
	if req.MediaType == MediaForm {
		body = append(body,
			jen.List(jen.Id("values"), jen.Err()).Op(":=").Qual(urlImport, "ParseQuery").Call(jen.String().Call(jen.Id("r").Dot("Body"))),
			jen.If(jen.Err().Op("!=").Nil()).Block(bad(jen.Err())),
			jen.If(jen.Err().Op(":=").Qual(formImport, "Decode").Call(jen.Id("values"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(bad(jen.Err())),
		)
	} else {
		body = append(body,
			jen.If(jen.Err().Op(":=").Qual(fingerprintImport, "Validate").Call(jen.Id("r").Dot("Body")), jen.Err().Op("!=").Nil()).Block(bad(jen.Err())),
			jen.If(jen.Err().Op(":=").Qual(jsonImport, "Unmarshal").Call(jen.Id("r").Dot("Body"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(bad(jen.Err())),
		)
	}
	body = append(body, jen.Return(jen.Op("&").Id("v"), jen.Nil()))
	f.Commentf("%s decodes the %s request body of %s.", op.DecodeFunc, strings.TrimPrefix(req.MediaType, "application/"), where(op))
	f.Func().Id(op.DecodeFunc).Params(jen.Id("r").Op("*").Qual(idemimplImport, "Request")).Params(jen.Op("*").Add(t), jen.Error()).Block(body...)
}

// emitFingerprint declares the typed fingerprint of an operation.
func emitFingerprint(f *jen.File, op *OperationPlan, fps *fingerprintEmitter) {
	o := op.Types.Op
	args := []jen.Code{jen.Lit(o.Method), jen.Lit(o.Path), jen.Id("params")}
	params := []jen.Code{}
	if op.Types.Request != nil {
		params = append(params, jen.Id("req").Op("*").Add(op.Types.Request.Type.Code()))
		write := fps.body(jen.Id("req"), op.Types.Request.Type, op.Fingerprint)
		args = append(args, jen.Func().Params(jen.Id(writer).Op("*").Qual(fingerprintImport, "Writer")).Block(
			append([]jen.Code{jen.If(jen.Id("req").Op("==").Nil()).Block(jen.Return())}, write...)...))
	} else {
		args = append(args, jen.Nil())
	}
	params = append(params, jen.Id("params").Map(jen.String()).String())
	f.Commentf("%s is the fingerprint of a %s request: the runtime's canonical form of its significant fields, computed from the typed request without reflection.", op.FingerprintFunc, where(op))
	f.Func().Id(op.FingerprintFunc).Params(params...).Params(jen.Qual(fingerprintImport, "Sum"), jen.Error()).Block(
		jen.Return(jen.Qual(fingerprintImport, "SumWith").Call(args...)),
	)
}

// emitNaturalKey declares the function that renders an operation's
// natural key: a canonical JSON array holding, per natural-key field, [v]
// or [] when it is absent.
func emitNaturalKey(f *jen.File, op *OperationPlan, fps *fingerprintEmitter) {
	t := op.Types.Request.Type
	root := jen.Code(jen.Parens(jen.Op("*").Id("req")))
	if t.Kind == TypeDeclared && t.Decl.Kind == DeclStruct {
		root = jen.Id("req")
	}
	body := []jen.Code{
		jen.Id(writer).Op(":=").New(jen.Qual(fingerprintImport, "Writer")),
		jen.Id(writer).Dot("BeginArray").Call(),
	}
	var names []string
	for _, nk := range op.NaturalKey {
		names = append(names, nk.Pointer)
		body = append(body, jen.Id(writer).Dot("BeginArray").Call())
		body = append(body, fps.selected(root, t, nk.Segments, nil, nil, 0)...)
		body = append(body, jen.Id(writer).Dot("EndArray").Call())
	}
	body = append(body,
		jen.Id(writer).Dot("EndArray").Call(),
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Id(writer).Dot("Result").Call(),
		jen.Return(jen.String().Call(jen.Id("b")), jen.Err()),
	)
	f.Commentf("%s renders the natural key of a %s request (%s) as canonical JSON; the runtime claims it so that one entity is created once per scope.", op.NaturalKeyFunc, where(op), strings.Join(names, ", "))
	f.Func().Id(op.NaturalKeyFunc).Params(jen.Id("req").Op("*").Add(t.Code())).Params(jen.String(), jen.Error()).Block(body...)
}
