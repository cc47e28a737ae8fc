package generator

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/spec"
)

// planWebhook plans the receiver of a webhook: its operation handle,
// typed request and decoder as an operation's (a webhook has no path, no
// route, no stored response and no fingerprint of its own: the inbox keys
// it by its message id and checks its body's hash), and the consumer
// contract the runtime reads; a webhooks entry whose block names a broker
// is planned as a broker consumer, with no route and no signature.
func planWebhook(ot *OperationTypes, types *TypePlan) *ir.Webhook {
	op, names := ot.Op, types.Names
	p := &ir.Operation{Name: ot.Name, Doc: where(op), Request: ot.Request}
	p.HandleType = names.Unique(ot.Name+"Operation", "operation handle of "+describe(op), op.Pos)
	c := op.Contract
	keyHeader := ""
	if c.Key.In.Value != spec.KeyInBody {
		keyHeader = c.Key.Name.Value
	}
	planRequest(p, op, ot.Name, keyHeader, names)
	methods := NewNamespace()
	methods.Reserve("the operation handle", "ID", "Scope", "Key")
	for _, e := range c.Effects {
		p.Effects = append(p.Effects, ir.Effect{
			Name:      e.Name.Value,
			Method:    methods.Unique("Enqueue"+GoName(e.Name.Value), "effect "+e.Name.Value, e.Pos),
			OnUnknown: string(e.OnUnknown.Value),
			Payload:   ot.Payloads[e.Name.Value],
		})
	}
	w := &ir.Webhook{
		Operation:   p,
		Consumer:    c.Consumer.Name.Value,
		Source:      c.Consumer.Source.Value,
		MaxAttempts: c.Consumer.MaxAttempts.Value,
		Retention:   c.Retention.Value,
		WaitTimeout: c.WaitTimeout.Value,
		KeyMaxLen:   c.Key.MaxLength.Value,
	}
	if c.Key.In.Value == spec.KeyInBody {
		w.KeyPointer = c.Key.Name.Value
	} else {
		w.KeyHeader = c.Key.Name.Value
	}
	if b := c.Consumer.Broker; b != nil {
		w.Broker = fmt.Sprintf("%s %s %s", b.Kind.Value.Title(), b.Kind.Value.ChannelField(), b.Channel.Value)
		w.ContractVar = names.Unique("broker"+ot.Name, "broker consumer contract of "+describe(op), op.Pos)
		w.ReceiverFunc = names.Unique("New"+ot.Name+"Consumer", "broker consumer of "+describe(op), op.Pos)
		return w
	}
	w.ContractVar = names.Unique("webhook"+ot.Name, "webhook contract of "+describe(op), op.Pos)
	w.ReceiverFunc = names.Unique("New"+ot.Name+"Receiver", "webhook receiver of "+describe(op), op.Pos)
	return w
}

// webhookParams returns the name of a parameter the webhook declares
// besides its key header, "" when it declares none: a generated receiver
// decodes the body only.
func webhookParams(op *spec.Operation) string {
	keyHeader := ""
	if op.Contract.Key.In.Value != spec.KeyInBody {
		keyHeader = op.Contract.Key.Name.Value
	}
	for _, prm := range parameters(op) {
		if !(prm.In == "header" && strings.EqualFold(prm.Name, keyHeader)) {
			return prm.Name
		}
	}
	return ""
}
