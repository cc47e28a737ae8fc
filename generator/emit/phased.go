package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// hasPhased reports whether prog has a phased operation.
func hasPhased(prog *ir.Program) bool {
	for _, op := range prog.Operations {
		if op.Phased != nil {
			return true
		}
	}
	return false
}

// stepSig is the signature of one step's business method, and of its
// verify method for an external step under the verify policy.
type stepSig struct {
	params  []jen.Code // named
	anon    []jen.Code // unnamed, for UnimplementedHandlers
	results []jen.Code
	// verifyResults are the verify method's results; its parameters are
	// the step's.
	verifyResults []jen.Code
	// zero is what UnimplementedHandlers returns besides its error.
	zero []jen.Code
}

// signature returns the signature of step i of op: the context, the
// step's transaction (local steps) or its key (external ones), the
// operation handle, the typed request and the previous step's output when
// it has one; the step's output, the last step's answer, or only an error.
func signature(op *ir.Operation, i int) stepSig {
	steps := op.Phased.Steps
	s := steps[i]
	var sig stepSig
	add := func(name string, t jen.Code) {
		sig.params = append(sig.params, jen.Id(name).Add(t))
		sig.anon = append(sig.anon, jen.Add(t))
	}
	add("ctx", jen.Qual(contextImport, "Context"))
	if !s.External {
		add("tx", jen.Qual(pgxImport, "Tx"))
	}
	add("op", jen.Op("*").Id(op.HandleType))
	if s.External {
		add("key", jen.String())
	}
	add("req", jen.Op("*").Id(op.RequestType))
	if i > 0 && steps[i-1].Output != nil {
		add("in", jen.Op("*").Add(typeCode(steps[i-1].Output)))
	}
	switch {
	case i == len(steps)-1:
		sig.results, sig.zero = []jen.Code{jen.Id(op.ResponseType), jen.Error()}, []jen.Code{jen.Nil()}
	case s.Output != nil:
		out := jen.Op("*").Add(typeCode(s.Output))
		sig.results, sig.zero = []jen.Code{out, jen.Error()}, []jen.Code{jen.Nil()}
		sig.verifyResults = []jen.Code{out.Clone(), jen.Bool(), jen.Error()}
	default:
		sig.results = []jen.Code{jen.Error()}
		sig.verifyResults = []jen.Code{jen.Bool(), jen.Error()}
	}
	return sig
}

// stepDoc says what one step's business method does, and what a crash, a
// retry or a time-out does there.
func stepDoc(op *ir.Operation, i int) string {
	s := op.Phased.Steps[i]
	where := fmt.Sprintf("step %s of %s", s.Name, op.Doc)
	switch {
	case i == len(op.Phased.Steps)-1:
		return fmt.Sprintf("%s runs %s, the last, in its own transaction, which records the answer it returns (%s) and completes the operation; a crash before its commit leaves nothing of it, and a retry or the completer runs it again.", s.Method, where, op.ResponseType)
	case s.External:
		return fmt.Sprintf("%s makes the call of %s outside the database, after the commit of the step before it and within %s; key is the step's key, the same on every attempt: pass it to the provider as its idempotency key. An error is an unknown outcome, handled by the step's policy (%s), except an *idem.Rejection, which answers with its problem.", s.Method, where, s.Timeout, s.OnUnknown)
	}
	return fmt.Sprintf("%s runs %s in its own transaction, which commits its recovery point with the output it returns; a crash before that commit leaves nothing of it and a retry or the completer runs it again, never after.", s.Method, where)
}

// stepMethods are the Handlers methods of a phased operation: one per
// step, and the verify method of an external step under the verify
// policy.
func stepMethods(op *ir.Operation) []jen.Code {
	var methods []jen.Code
	for i, s := range op.Phased.Steps {
		sig := signature(op, i)
		methods = append(methods, comments(stepDoc(op, i))...)
		methods = append(methods, jen.Id(s.Method).Params(sig.params...).Params(sig.results...))
		if s.VerifyMethod != "" {
			methods = append(methods, comments(fmt.Sprintf("%s asks the provider whether the call of %s with key took effect, after its outcome was unknown: the call's output and true, or false when it did not (then %s is called again with the same key); an error leaves the outcome unknown.", s.VerifyMethod, s.Name, s.Method))...)
			methods = append(methods, jen.Id(s.VerifyMethod).Params(sig.params...).Params(sig.verifyResults...))
		}
	}
	return methods
}

// unimplementedSteps declares UnimplementedHandlers' methods of a phased
// operation: each answers 501 Not Implemented.
func unimplementedSteps(f *jen.File, prog *ir.Program, op *ir.Operation) {
	for i, s := range op.Phased.Steps {
		sig := signature(op, i)
		notImplemented := jen.Qual(idemimplImport, "NotImplemented").Call(jen.Lit(op.Doc))
		comment(f, fmt.Sprintf("%s answers %s with 501 Not Implemented.", s.Method, op.Doc))
		f.Func().Params(jen.Id(prog.Unimplemented)).Id(s.Method).Params(sig.anon...).Params(sig.results...).Block(
			jen.Return(append(sig.zero, notImplemented)...),
		)
		if s.VerifyMethod != "" {
			zero := []jen.Code{jen.False(), notImplemented.Clone()}
			if s.Output != nil {
				zero = append([]jen.Code{jen.Nil()}, zero...)
			}
			comment(f, fmt.Sprintf("%s answers %s with 501 Not Implemented.", s.VerifyMethod, op.Doc))
			f.Func().Params(jen.Id(prog.Unimplemented)).Id(s.VerifyMethod).Params(sig.anon...).Params(sig.verifyResults...).Block(
				jen.Return(zero...),
			)
		}
	}
}

// emitPhased declares the function that binds a phased operation to the
// service's Handlers: its contract, typed request decoder, typed
// fingerprint, natural key and steps, each calling its business method
// with the operation handle, the outputs stored as their JSON encoding.
func emitPhased(f *jen.File, op *ir.Operation) {
	t := jen.Id(op.RequestType)
	steps := op.Phased.Steps
	var list []jen.Code
	for i, s := range steps {
		list = append(list, jen.Line().Add(stepBinding(op, i, s)))
	}
	var naturalKey jen.Code
	if op.NaturalKeyFunc != "" {
		naturalKey = jen.Id(op.NaturalKeyFunc)
	}
	phased := []kv{
		{"Contract", jen.Id(op.ContractVar)},
		{"Decode", jen.Id(op.DecodeFunc)},
		{"Fingerprint", jen.Id(op.FingerprintFunc)},
		{"NaturalKey", naturalKey},
		{"Steps", jen.Index().Qual(idemimplImport, "Step").Index(t.Clone()).Values(append(list, jen.Line())...)},
		currentBinding(op),
	}
	handle := handleValue(op)
	comment(f, fmt.Sprintf("%s binds the phased %s to h: its contract, typed request, typed fingerprint and steps.", op.Phased.Func, op.Doc))
	f.Func().Id(op.Phased.Func).Params(jen.Id("h").Id("Handlers")).Qual(idemimplImport, "Phased").Index(t.Clone()).Block(
		jen.Id("handle").Op(":=").Func().Params(jen.Id("op").Op("*").Qual(idemimplImport, "Operation"), jen.Id("tx").Qual(pgxImport, "Tx")).Op("*").Id(op.HandleType).Block(
			jen.Return(handle),
		),
		jen.Return(jen.Qual(idemimplImport, "Phased").Index(t.Clone()).Values(keyed(phased)...)),
	)
}

// stepBinding is one element of a phased binding's steps: the runtime's
// LocalStep, CallStep or FinalStep around the step's business method.
func stepBinding(op *ir.Operation, i int, s ir.Step) jen.Code {
	steps := op.Phased.Steps
	in := jen.Qual(idemimplImport, "NoOutput")
	passIn := false
	if i > 0 && steps[i-1].Output != nil {
		in, passIn = typeCode(steps[i-1].Output), true
	}
	out := jen.Qual(idemimplImport, "NoOutput")
	if s.Output != nil {
		out = typeCode(s.Output)
	}
	req := jen.Op("*").Id(op.RequestType)
	opParam := jen.Id("op").Op("*").Qual(idemimplImport, "Operation")
	args := func(tx jen.Code, key bool) []jen.Code {
		a := []jen.Code{jen.Id("ctx")}
		if tx != nil {
			a = append(a, tx)
		}
		a = append(a, jen.Id("handle").Call(jen.Id("op"), cond(tx != nil, jen.Id("tx"), jen.Nil())))
		if key {
			a = append(a, jen.Id("key"))
		}
		a = append(a, jen.Id("req"))
		if passIn {
			a = append(a, jen.Id("in"))
		}
		return a
	}
	inParam := jen.Id(cond(passIn, "in", "_")).Op("*").Add(in.Clone())
	call := func(method string, tx jen.Code, key bool) *jen.Statement {
		return jen.Id("h").Dot(method).Call(args(tx, key)...)
	}
	switch {
	case i == len(steps)-1:
		fn := jen.Func().Params(jen.Id("ctx").Qual(contextImport, "Context"), jen.Id("tx").Qual(pgxImport, "Tx"), opParam, jen.Id("req").Add(req), inParam).
			Params(jen.Id(op.ResponseType), jen.Error()).Block(jen.Return(call(s.Method, jen.Id("tx"), false)))
		return jen.Qual(idemimplImport, "FinalStep").Call(jen.Lit(s.Name), fn, jen.Id(op.ResponseType).Dot(op.ResponseMethod))
	case s.External:
		params := []jen.Code{jen.Id("ctx").Qual(contextImport, "Context"), opParam, jen.Id("key").String(), jen.Id("req").Add(req), inParam}
		fn := jen.Func().Params(params...).Params(jen.Op("*").Add(out.Clone()), jen.Error()).Block(returnOutput(s.Output != nil, call(s.Method, nil, true)))
		verify := jen.Code(jen.Nil())
		if s.VerifyMethod != "" {
			v := call(s.VerifyMethod, nil, true)
			var body jen.Code = jen.Return(v)
			if s.Output == nil {
				body = jen.List(jen.Id("done"), jen.Err()).Op(":=").Add(v).Line().Return(jen.Nil(), jen.Id("done"), jen.Err())
			}
			verify = jen.Func().Params(params...).Params(jen.Op("*").Add(out.Clone()), jen.Bool(), jen.Error()).Block(body)
		}
		return jen.Qual(idemimplImport, "CallStep").Call(jen.Lit(s.Name), jen.Qual(idemimplImport, onUnknownConst[s.OnUnknown]), duration(s.Timeout), fn, verify)
	}
	fn := jen.Func().Params(jen.Id("ctx").Qual(contextImport, "Context"), jen.Id("tx").Qual(pgxImport, "Tx"), opParam, jen.Id("req").Add(req), inParam).
		Params(jen.Op("*").Add(out.Clone()), jen.Error()).Block(returnOutput(s.Output != nil, call(s.Method, jen.Id("tx"), false)))
	return jen.Qual(idemimplImport, "LocalStep").Call(jen.Lit(s.Name), fn)
}

// returnOutput returns what the business method call returns: its output
// and error, or, for a step without output, no output and its error.
func returnOutput(hasOutput bool, call *jen.Statement) jen.Code {
	if hasOutput {
		return jen.Return(call)
	}
	return jen.Return(jen.Nil(), call)
}

// onUnknownConst names the runtime's constant of each on-unknown policy.
var onUnknownConst = map[string]string{"retry": "OnUnknownRetry", "verify": "OnUnknownVerify", "halt": "OnUnknownHalt"}

// cond is c ? a : b.
func cond[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}
