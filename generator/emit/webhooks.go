package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitWebhooks adds, for every webhook receiver of prog, its operation
// handle, typed request and decoder, then the WebhookHandlers interface
// and, per webhook, its run-time contract and receiver constructor. A
// program without webhooks gets none of these.
func emitWebhooks(f *jen.File, prog *ir.Program) {
	if len(prog.Webhooks) == 0 {
		return
	}
	var methods []jen.Code
	for _, w := range prog.Webhooks {
		op := w.Operation
		emitWebhookHandle(f, op)
		emitRequest(f, op)
		emitDecode(f, op)
		methods = append(methods, comments(fmt.Sprintf("%s handles %s once per message id: a redelivery of a processed webhook does not reach it.", op.Name, op.Doc))...)
		methods = append(methods, jen.Id(op.Name).Params(handlerParams(op, true)...).Error())
	}
	comment(f, "WebhookHandlers is the business logic of the webhook receivers; the service implements it and each New…Receiver wires one to HTTP. Each method runs inside the transaction that also writes the message's inbox row: what it does through tx, and the effects it enqueues, commit exactly once per message. Returning an error rolls everything back and counts a failed attempt; the sender's redelivery runs it again until the contract's max-attempts, after which the webhook is dead-lettered for support."+brokerSentence(prog))
	f.Type().Id("WebhookHandlers").Interface(methods...)
	for _, w := range prog.Webhooks {
		if w.Broker != "" {
			emitBrokerContract(f, w)
			emitBrokerConsumer(f, w)
			continue
		}
		emitWebhookContract(f, w)
		emitReceiver(f, w)
	}
}

// emitWebhookHandle declares the handle a webhook's method receives: as
// an operation's, with the message's id and sender in place of a key and a
// tenant.
func emitWebhookHandle(f *jen.File, op *ir.Operation) {
	declareHandle(f, op, fmt.Sprintf("%s is what the method handling %s gets besides the request: the id its effects carry, the sender and the message id, and its effects' enqueuers.", op.HandleType, op.Doc),
		handleFields{"derived from the sender, the consumer and the message id: stable across deliveries",
			"the sender (the contract's source), the scope of its message ids", "the message id, such as its webhook-id"})
}

// emitWebhookContract declares the run-time contract of a webhook.
func emitWebhookContract(f *jen.File, w *ir.Webhook) {
	key := []kv{{"MaxLength", jen.Lit(w.KeyMaxLen)}}
	if w.KeyPointer != "" {
		key = append([]kv{{"BodyPointer", jen.Lit(w.KeyPointer)}}, key...)
	} else {
		key = append([]kv{{"Header", jen.Lit(w.KeyHeader)}}, key...)
	}
	comment(f, fmt.Sprintf("%s is the contract of %s: its consumer, sender, message id, poison policy and retention.", w.ContractVar, w.Operation.Doc))
	f.Var().Id(w.ContractVar).Op("=").Qual(idemimplImport, "Webhook").Values(keyed([]kv{
		{"Name", jen.Lit(w.Consumer)},
		{"Source", jen.Lit(w.Source)},
		{"Key", jen.Qual(idemimplImport, "KeySpec").Values(keyed(key)...)},
		{"MaxAttempts", jen.Lit(w.MaxAttempts)},
		{"Retention", duration(w.Retention)},
		{"WaitTimeout", duration(w.WaitTimeout)},
	})...)
}

// emitReceiver declares the constructor of a webhook's receiver.
func emitReceiver(f *jen.File, w *ir.Webhook) {
	op := w.Operation
	decode, run := messageFuncs(op)
	comment(f, fmt.Sprintf("%s returns the http.Handler receiving %s: it verifies the Standard Webhooks signature with secrets (whsec_… values from configuration; several during a rotation) before reading the body, answers a bad or old signature 401 with nothing recorded, and runs h.%s once per message id from %s; a duplicate is answered 204.", w.ReceiverFunc, op.Doc, op.Name, w.Source))
	f.Func().Id(w.ReceiverFunc).Params(
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("WebhookHandlers"),
		jen.Id("secrets").Op("...").String(),
	).Params(jen.Op("*").Qual(idemimplImport, "WebhookReceiver"), jen.Error()).Block(
		jen.Return(jen.Qual(idemimplImport, "NewWebhookReceiver").Call(jen.Id("exec"), jen.Id(w.ContractVar), jen.Id("secrets"), decode, run)),
	)
}

// messageFuncs returns the functions a webhook receiver and a broker
// consumer share: decode, the body to the typed request, and run, the
// handler's method h.<Name> with the operation handle.
func messageFuncs(op *ir.Operation) (decode, run jen.Code) {
	t := jen.Id(op.RequestType)
	decode = jen.Func().Params(jen.Id("body").Index().Byte()).Params(jen.Op("*").Add(t.Clone()), jen.Error()).Block(
		jen.Return(jen.Id(op.DecodeFunc).Call(jen.Op("&").Qual(idemimplImport, "Request").Values(jen.Id("Body").Op(":").Id("body")))),
	)
	run = jen.Func().Params(
		jen.Id("ctx").Qual(contextImport, "Context"),
		jen.Id("tx").Qual(pgxImport, "Tx"),
		jen.Id("op").Op("*").Qual(idemimplImport, "Operation"),
		jen.Id("req").Op("*").Add(t.Clone()),
	).Error().Block(
		jen.Return(jen.Id("h").Dot(op.Name).Call(jen.Id("ctx"), jen.Id("tx"), handleValue(op), jen.Id("req"))),
	)
	return decode, run
}

// brokerSentence adds to the WebhookHandlers comment what its broker
// consumers are, "" when prog has none.
func brokerSentence(prog *ir.Program) string {
	for _, w := range prog.Webhooks {
		if w.Broker != "" {
			return " A method of a broker consumer (New…Consumer) is the same: its message comes from a broker's adapter rather than over HTTP, and the broker redelivers it."
		}
	}
	return ""
}
