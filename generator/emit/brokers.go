package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitBrokerContract declares the run-time contract of a broker consumer.
func emitBrokerContract(f *jen.File, w *ir.Webhook) {
	fields := []kv{{"Name", jen.Lit(w.Consumer)}, {"Source", jen.Lit(w.Source)}}
	if w.KeyPointer != "" {
		fields = append(fields, kv{"KeyPointer", jen.Lit(w.KeyPointer)})
	}
	fields = append(fields,
		kv{"KeyMaxLength", jen.Lit(w.KeyMaxLen)},
		kv{"MaxAttempts", jen.Lit(w.MaxAttempts)},
		kv{"Retention", duration(w.Retention)},
		kv{"WaitTimeout", duration(w.WaitTimeout)},
	)
	comment(f, fmt.Sprintf("%s is the contract of %s, a consumer of %s: its name, source, key, poison policy and retention.", w.ContractVar, w.Operation.Doc, w.Broker))
	f.Var().Id(w.ContractVar).Op("=").Qual(idemimplImport, "Broker").Values(keyed(fields)...)
}

// emitBrokerConsumer declares the constructor of a broker consumer: the
// webhook receiver's decode and run, with no signature to verify.
func emitBrokerConsumer(f *jen.File, w *ir.Webhook) {
	op := w.Operation
	decode, run := messageFuncs(op)
	key := "the broker's message id"
	if w.KeyPointer != "" {
		key = "the body's " + w.KeyPointer + " (a body without it fails its delivery)"
	}
	comment(f, fmt.Sprintf("%s returns the consumer of %s from %s: hand it to that broker's adapter in runtime/idembroker as its Deliverer. It keys each message by %s within %s, decodes and validates its body (a body that does not match fails the delivery) and runs h.%s once per key; a failed delivery is counted and dead-lettered after %d attempts.", w.ReceiverFunc, op.Doc, w.Broker, key, w.Source, op.Name, w.MaxAttempts))
	f.Func().Id(w.ReceiverFunc).Params(
		jen.Id("exec").Op("*").Qual(idemImport, "Executor"),
		jen.Id("h").Id("WebhookHandlers"),
	).Params(jen.Op("*").Qual(idemimplImport, "BrokerConsumer"), jen.Error()).Block(
		jen.Return(jen.Qual(idemimplImport, "NewBrokerConsumer").Call(jen.Id("exec"), jen.Id(w.ContractVar), decode, run)),
	)
}
