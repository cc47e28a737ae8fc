package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitOperations adds, for every operation of prog, its run-time contract,
// operation handle, typed request and its decoder, responses and typed
// fingerprint, then the Handlers interface, UnimplementedHandlers and the
// routes.
func emitOperations(f *jen.File, prog *ir.Program) {
	fps := newFingerprintEmitter()
	for _, op := range prog.Operations {
		emitContract(f, op)
		emitHandle(f, op)
		emitRequest(f, op)
		emitDecode(f, op)
		emitResponses(f, op)
		emitFingerprint(f, op, fps)
		if op.NaturalKeyFunc != "" {
			emitNaturalKey(f, op, fps)
		}
		if op.PathValuesFunc != "" {
			emitPathValues(f, op)
		}
	}
	fps.emitWalkers(f)
	emitHandlers(f, prog)
	emitUnimplemented(f, prog)
	emitRoutes(f, prog)
	emitWebhooks(f, prog)
}

// emitHandle declares the operation handle the business method receives:
// the operation's id, scope and key, and one enqueuer per effect.
func emitHandle(f *jen.File, op *ir.Operation) {
	declareHandle(f, op, fmt.Sprintf("%s is what the business method of %s gets besides the request: the operation's id, scope and key, and its effects' enqueuers.", op.HandleType, op.Doc),
		handleFields{"the operation's id, a UUID the runtime generated, for logs and support", "the trusted scope (tenant) the key lives in", "the idempotency key"})
}

// handleFields are the comments of a handle's ID, Scope and Key.
type handleFields struct{ id, scope, key string }

// declareHandle declares an operation handle with the doc comment doc and
// the field comments of fields, and its effects' enqueuers.
func declareHandle(f *jen.File, op *ir.Operation, doc string, fields handleFields) {
	comment(f, doc)
	f.Type().Id(op.HandleType).Struct(
		jen.Id("ID").String().Comment(fields.id),
		jen.Id("Scope").String().Comment(fields.scope),
		jen.Id("Key").String().Comment(fields.key),
		jen.Line(),
		jen.Id("op").Op("*").Qual(idemimplImport, "Operation"),
		jen.Id("tx").Qual(pgxImport, "Tx"),
	)
	for _, e := range op.Effects {
		emitEnqueuer(f, op, e)
	}
}

// handleValue is the operation handle a binding hands the business method,
// built from the runtime's op and tx in scope.
func handleValue(op *ir.Operation) jen.Code {
	return jen.Op("&").Id(op.HandleType).Values(
		jen.Id("ID").Op(":").Id("op").Dot("ID"),
		jen.Id("Scope").Op(":").Id("op").Dot("Scope"),
		jen.Id("Key").Op(":").Id("op").Dot("Key"),
		jen.Id("op").Op(":").Id("op"),
		jen.Id("tx").Op(":").Id("tx"),
	)
}

// emitEnqueuer declares the method of the operation handle that writes one
// effect to the outbox: with a payload schema it takes the typed payload
// and encodes it as JSON (encoding/json: struct fields in declaration
// order, map keys sorted), else the payload's bytes.
func emitEnqueuer(f *jen.File, op *ir.Operation, e ir.Effect) {
	enqueue := func(payload jen.Code) jen.Code {
		return jen.Return(jen.Id("o").Dot("op").Dot("Enqueue").Call(jen.Id("ctx"), jen.Id("o").Dot("tx"), jen.Qual(idemimplImport, "Effect").Values(jen.Dict{
			jen.Id("Name"):      jen.Lit(e.Name),
			jen.Id("OnUnknown"): jen.Lit(e.OnUnknown),
			jen.Id("Payload"):   payload,
		})))
	}
	what := fmt.Sprintf("%s writes the %s effect to the outbox in the operation's transaction, so it exists exactly when the operation commits, and returns its key, which is stable across retries; when its outcome is unknown the policy is %q.", e.Method, e.Name, e.OnUnknown)
	if e.Payload == nil {
		comment(f, what+" The payload is bytes of the caller's choosing, handed to the provider as they are.")
		f.Func().Params(jen.Id("o").Op("*").Id(op.HandleType)).Id(e.Method).Params(
			jen.Id("ctx").Qual(contextImport, "Context"),
			jen.Id("payload").Index().Byte(),
		).Params(jen.String(), jen.Error()).Block(enqueue(jen.Id("payload")))
		return
	}
	comment(f, what+" The payload is stored as its JSON encoding and handed to the provider decoded.")
	f.Func().Params(jen.Id("o").Op("*").Id(op.HandleType)).Id(e.Method).Params(
		jen.Id("ctx").Qual(contextImport, "Context"),
		jen.Id("payload").Add(typeCode(e.Payload)),
	).Params(jen.String(), jen.Error()).Block(
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(jsonImport, "Marshal").Call(jen.Id("payload")),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Lit(""), jen.Qual(fmtImport, "Errorf").Call(jen.Lit("effect "+e.Name+": payload: %w"), jen.Err())),
		),
		enqueue(jen.Id("b")),
	)
}

// emitFingerprint declares the typed fingerprint of an operation: of its
// typed request's body, as the runtime canonicalises its JSON, and of the
// path parameters as the router gave them.
func emitFingerprint(f *jen.File, op *ir.Operation, fps *fingerprintEmitter) {
	args := []jen.Code{jen.Lit(op.Contract.Method), jen.Lit(op.Contract.Route), jen.Id("params")}
	req := jen.Id("_")
	if op.Request != nil {
		req = jen.Id("req")
		body := jen.Id("req").Dot(ir.FieldBody)
		write := fps.body(body, op.Request.Type, op.Fingerprint)
		if !op.Request.Required {
			write = []jen.Code{jen.If(body.Clone().Op("!=").Nil()).Block(write...)}
		}
		args = append(args, jen.Func().Params(jen.Id(writer).Op("*").Qual(fingerprintImport, "Writer")).Block(write...))
	} else {
		args = append(args, jen.Nil())
	}
	comment(f, fmt.Sprintf("%s is the fingerprint of a %s request, computed from the typed request as the runtime canonicalises its JSON.", op.FingerprintFunc, op.Doc))
	f.Func().Id(op.FingerprintFunc).Params(req.Op("*").Id(op.RequestType), jen.Id("params").Map(jen.String()).String()).Params(jen.Qual(fingerprintImport, "Sum"), jen.Error()).Block(
		jen.Return(jen.Qual(fingerprintImport, "SumWith").Call(args...)),
	)
}

// emitNaturalKey declares the function that renders an operation's
// natural key: a canonical JSON array holding, per natural-key field, [v]
// or [] when it is absent.
func emitNaturalKey(f *jen.File, op *ir.Operation, fps *fingerprintEmitter) {
	t := op.Request.Type
	root := jen.Code(jen.Parens(jen.Op("*").Id("req").Dot(ir.FieldBody)))
	if t.Kind == ir.TypeDeclared && t.Decl.Kind == ir.DeclStruct {
		root = jen.Id("req").Dot(ir.FieldBody)
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
	comment(f, fmt.Sprintf("%s renders the natural key of a %s request (%s) as canonical JSON; the runtime claims it so that one entity is created once per scope.", op.NaturalKeyFunc, op.Doc, strings.Join(names, ", ")))
	f.Func().Id(op.NaturalKeyFunc).Params(jen.Id("req").Op("*").Id(op.RequestType)).Params(jen.String(), jen.Error()).Block(body...)
}

// emitPathValues declares the function that takes the route's templated
// segments apart into the path parameters, which it sets under their
// OpenAPI names for the runtime to read; it reports false when a segment
// does not have the template's shape.
func emitPathValues(f *jen.File, op *ir.Operation) {
	var decls, body, sets []jen.Code
	cuts, vars := false, []jen.Code{}
	fail := jen.Return(jen.False())
	for i, s := range op.Route.Segments {
		seg := jen.Id(fmt.Sprintf("s%d", i))
		body = append(body, jen.Add(seg).Op(":=").Id("r").Dot("PathValue").Call(jen.Lit(s.Wildcard)))
		cut := func(fn, lit string) {
			cuts = true
			body = append(body, jen.If(jen.List(seg, jen.Id("ok")).Op("=").Qual(stringsImport, fn).Call(seg, jen.Lit(lit)), jen.Op("!").Id("ok")).Block(fail))
		}
		if s.Literals[0] != "" {
			cut("CutPrefix", s.Literals[0])
		}
		if last := s.Literals[len(s.Literals)-1]; last != "" {
			cut("CutSuffix", last)
		}
		for j, p := range s.Params {
			if j == len(s.Params)-1 {
				if len(s.Params) > 1 || s.Literals[0] != "" || s.Literals[1] != "" {
					body = append(body, jen.If(jen.Add(seg).Op("==").Lit("")).Block(fail))
				}
				sets = append(sets, jen.Id("r").Dot("SetPathValue").Call(jen.Lit(p), seg))
				continue
			}
			cuts = true
			v := jen.Id(fmt.Sprintf("v%d", len(vars)))
			vars = append(vars, v)
			body = append(body, jen.If(jen.List(v, seg, jen.Id("ok")).Op("=").Qual(stringsImport, "Cut").Call(seg, jen.Lit(s.Literals[j+1])), jen.Op("!").Id("ok").Op("||").Add(v).Op("==").Lit("")).Block(fail))
			sets = append(sets, jen.Id("r").Dot("SetPathValue").Call(jen.Lit(p), v))
		}
	}
	if cuts {
		decls = append(decls, jen.Var().Id("ok").Bool())
	}
	if len(vars) > 0 {
		decls = append(decls, jen.Var().List(vars...).String())
	}
	body = append(append(decls, body...), sets...)
	body = append(body, jen.Return(jen.True()))
	comment(f, fmt.Sprintf("%s takes the path of a %s request apart: it reads the router's wildcards and sets each path parameter under its OpenAPI name, reporting false when the path does not have the template's shape.", op.PathValuesFunc, op.Doc))
	f.Func().Id(op.PathValuesFunc).Params(jen.Id("r").Op("*").Qual(httpImport, "Request")).Bool().Block(body...)
}
