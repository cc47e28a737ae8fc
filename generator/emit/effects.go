package emit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitProviders declares, per effect name, the call its provider receives,
// the typed provider interface and the unexported adapter to the worker's
// idem.Provider; then the struct of every provider and the function that
// registers them.
func emitProviders(f *jen.File, prog *ir.Program) {
	for _, pr := range prog.Providers {
		emitCall(f, pr)
		emitProviderInterface(f, pr)
		emitAdapter(f, pr)
	}
	var fields []jen.Code
	for _, pr := range prog.Providers {
		fields = append(fields, comments(fmt.Sprintf("%s executes the %s effect.", pr.Field, pr.Effect))...)
		fields = append(fields, jen.Id(pr.Field).Id(pr.Interface))
	}
	comment(f, fmt.Sprintf("%s holds the typed provider of each effect, for %s; a nil one is left out, so that a worker given the result does not claim that effect.", prog.ProvidersType, prog.ProvidersFunc))
	f.Type().Id(prog.ProvidersType).Struct(fields...)

	body := []jen.Code{jen.Id("m").Op(":=").Map(jen.String()).Qual(idemImport, "Provider").Values()}
	for _, pr := range prog.Providers {
		body = append(body, jen.If(jen.Id("p").Dot(pr.Field).Op("!=").Nil()).Block(
			jen.Id("m").Index(jen.Lit(pr.Effect)).Op("=").Id(pr.Adapter).Values(jen.Id("p").Dot(pr.Field)),
		))
	}
	body = append(body, jen.Return(jen.Id("m")))
	comment(f, fmt.Sprintf("%s returns the worker's registrations of the typed providers in p, by effect name, for idem.WorkerConfig's Providers: each decodes the stored payload and calls its provider.", prog.ProvidersFunc))
	f.Func().Id(prog.ProvidersFunc).Params(jen.Id("p").Id(prog.ProvidersType)).Map(jen.String()).Qual(idemImport, "Provider").Block(body...)
}

// emitCall declares the call an effect's provider receives.
func emitCall(f *jen.File, pr *ir.Provider) {
	payload, payloadDoc := jen.Index().Byte(), "Payload is the payload's bytes as the business method enqueued them (the effect has no payload schema)."
	if pr.Payload != nil {
		payload, payloadDoc = typeCode(pr.Payload), "Payload is the payload as enqueued, decoded from its stored JSON."
	}
	var fields []jen.Code
	fields = append(fields, comments("Key is the effect key: the same on every attempt, derived from the stored operation; pass it on as the external system's idempotency key.")...)
	fields = append(fields, jen.Id("Key").String())
	fields = append(fields, comments("Attempt is 1 for the first attempt; attempts that only verified count too.")...)
	fields = append(fields, jen.Id("Attempt").Int())
	fields = append(fields, comments("Operation is the contract's name of the operation that enqueued the effect.")...)
	fields = append(fields, jen.Id("Operation").String())
	fields = append(fields, comments(payloadDoc)...)
	fields = append(fields, jen.Id("Payload").Add(payload))
	comment(f, fmt.Sprintf("%s is one call of the %s effect's provider.", pr.CallType, pr.Effect))
	f.Type().Id(pr.CallType).Struct(fields...)
}

// emitProviderInterface declares the typed provider of one effect.
func emitProviderInterface(f *jen.File, pr *ir.Provider) {
	methods := comments("Do executes one attempt under call.Key and answers idem.EffectDone(), idem.EffectNotDone(err) (definitely not done: repeated), idem.EffectFailed(err) (never repeated) or idem.EffectUnknown(err) (the effect's policy decides).")
	methods = append(methods, jen.Id("Do").Params(jen.Id("ctx").Qual(contextImport, "Context"), jen.Id("call").Id(pr.CallType)).Qual(idemImport, "EffectOutcome"))
	policy := "the effect is called again with the same key, or halted, as its policy says"
	if pr.Verify {
		methods = append(methods, comments("Verify answers whether the effect with key took place: idem.VerifyDone, idem.VerifyNotDone (Do is called again) or idem.VerifyUnknown (asked again after a backoff).")...)
		methods = append(methods, jen.Id("Verify").Params(jen.Id("ctx").Qual(contextImport, "Context"), jen.Id("key").String()).Qual(idemImport, "VerifyOutcome"))
		policy = "the worker asks Verify before any repeat"
	}
	enqueue := "enqueues"
	if len(pr.Operations) > 1 {
		enqueue = "enqueue"
	}
	comment(f, fmt.Sprintf("%s executes the %s effect, which %s %s; after an unknown outcome %s.", pr.Interface, pr.Effect, strings.Join(pr.Operations, " and "), enqueue, policy))
	f.Type().Id(pr.Interface).Interface(methods...)
}

// emitAdapter declares the unexported idem.Provider of one typed
// provider: it decodes the stored payload (an undecodable one fails for
// good: no repeat can change it) and calls the typed Do; for a verify
// effect it passes Verify on.
func emitAdapter(f *jen.File, pr *ir.Provider) {
	comment(f, fmt.Sprintf("%s is the worker's idem.Provider of %s: it calls the typed %s.", pr.Adapter, pr.Effect, pr.Interface))
	f.Type().Id(pr.Adapter).Struct(jen.Id("p").Id(pr.Interface))
	payload := jen.Id("call").Dot("Payload")
	var body []jen.Code
	if pr.Payload != nil {
		payload = jen.Id("payload")
		body = append(body,
			jen.Var().Id("payload").Add(typeCode(pr.Payload)),
			jen.If(jen.Err().Op(":=").Qual(jsonImport, "Unmarshal").Call(jen.Id("call").Dot("Payload"), jen.Op("&").Id("payload")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Qual(idemImport, "EffectFailed").Call(jen.Qual(fmtImport, "Errorf").Call(jen.Lit("effect "+pr.Effect+": stored payload: %w"), jen.Err()))),
			),
		)
	}
	call := jen.Dict{
		jen.Id("Key"):       jen.Id("call").Dot("Key"),
		jen.Id("Attempt"):   jen.Id("call").Dot("Attempt"),
		jen.Id("Operation"): jen.Id("call").Dot("Operation"),
		jen.Id("Payload"):   payload,
	}
	body = append(body, jen.Return(jen.Id("a").Dot("p").Dot("Do").Call(jen.Id("ctx"), jen.Id(pr.CallType).Values(call))))
	comment(f, "Do decodes the call and calls the typed provider.")
	f.Func().Params(jen.Id("a").Id(pr.Adapter)).Id("Do").Params(jen.Id("ctx").Qual(contextImport, "Context"), jen.Id("call").Qual(idemImport, "EffectCall")).Qual(idemImport, "EffectOutcome").Block(body...)
	if pr.Verify {
		comment(f, "Verify asks the typed provider.")
		f.Func().Params(jen.Id("a").Id(pr.Adapter)).Id("Verify").Params(jen.Id("ctx").Qual(contextImport, "Context"), jen.Id("key").String()).Qual(idemImport, "VerifyOutcome").Block(
			jen.Return(jen.Id("a").Dot("p").Dot("Verify").Call(jen.Id("ctx"), jen.Id("key"))),
		)
	}
}
