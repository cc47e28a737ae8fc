package explain

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// consumerItems explains the contract of a webhook: the inbox consumer
// that receives it, not an operation with a stored response.
func consumerItems(op *spec.Operation) []Item {
	c := op.Contract
	cons := c.Consumer
	if cons.Broker != nil {
		return brokerItems(op)
	}
	where := fmt.Sprintf("the `%s` header", c.Key.Name.Value)
	if c.Key.In.Value == spec.KeyInBody {
		where = fmt.Sprintf("the body's `%s` field", c.Key.Name.Value)
	}
	items := []Item{
		{Label: "Signature", Text: "The receiver verifies the Standard Webhooks signature (HMAC-SHA256 over `webhook-id.webhook-timestamp.body`, with any of the secrets it is given, so that a secret can be rotated) before it reads the body. A bad signature, or a `webhook-timestamp` more than 5 minutes from the receiver's clock, gets 401 and nothing is recorded. A body that does not match the schema then gets 400."},
		{Label: "Message", Text: fmt.Sprintf("A delivery is a redelivery of an earlier one when it carries the same message id, in %s, from the same sender, `%s`; ids of other senders, and of other consumers, never match. A delivery without an id gets 400.", where, cons.Source.Value)},
		{Label: "Consumer", Text: consumerNameSentence(op)},
		{Label: "Once", Text: fmt.Sprintf("The handler runs in one transaction with the message's inbox row, so its changes and its effects commit exactly once. A redelivery of a processed message gets 204 without running the handler; the same id with a different body gets 422. Concurrent deliveries of one message wait for the first (up to %s, then 409 with `Retry-After`) and then get 204. It never answers 410, which senders take as \"disable this endpoint\".", human(c.WaitTimeout.Value))},
		{Label: "Failures", Text: fmt.Sprintf("A handler that fails leaves nothing of its changes; the attempt is counted in the inbox (not by the sender) and answered 500, so the sender delivers it again. After %d failed attempts the message is dead-lettered: it is answered 202, so the sender stops, and kept with its body: `idemgen ops messages` lists it and `idemgen ops retry-message` hands it to the consumer's `Redrive` for one more delivery.", cons.MaxAttempts.Value)},
		{Label: "Retention", Text: retentionSentence(c)},
	}
	if src := overlaySentence(op); src != "" {
		items = append([]Item{{Label: "Source", Text: src}}, items...)
	}
	return append(items, effectsItem(c))
}

// consumerNameSentence says what the inbox names the consumer, and what
// renaming it would do.
func consumerNameSentence(op *spec.Operation) string {
	name := op.Contract.Consumer.Name
	if name.Set {
		return fmt.Sprintf("The inbox names this consumer `%s` (its `consumer`), whatever its operationId: each consumer processes a message once, so a new name would make every message processed so far new again.", name.Value)
	}
	return fmt.Sprintf("The inbox names this consumer by its operationId, `%s`: renaming the operationId renames the consumer, and every message processed so far would run the handler again. Write `consumer: %s` to keep the name through a rename.", name.Value, name.Value)
}

// retentionSentence explains how long a processed message is remembered,
// against the sender's retry horizon when the contract names the sender.
func retentionSentence(c *spec.Contract) string {
	s := fmt.Sprintf("A processed message's id is remembered for %s; a delivery after that runs the handler as a new message.", human(c.Retention.Value))
	sender := c.Consumer.Sender
	if !sender.Set {
		return s + " The sender is not named (`sender`), so no check compares this with how long it retries."
	}
	horizon := sender.Value.Horizon()
	if c.Retention.Value >= horizon {
		return s + fmt.Sprintf(" A `%s` sender retries for %s, within that.", sender.Value, spec.FormatDuration(horizon))
	}
	return s + fmt.Sprintf(" A `%s` sender retries for %s, longer than that: a late retry runs the handler again (IDEM041).", sender.Value, spec.FormatDuration(horizon))
}

// brokerItems explains the contract of a broker consumer: a webhooks
// entry whose messages come from a broker rather than over HTTP.
func brokerItems(op *spec.Operation) []Item {
	c := op.Contract
	cons := c.Consumer
	b := cons.Broker
	key := "keyed by the broker's message id"
	if c.Key.In.Value == spec.KeyInBody {
		key = fmt.Sprintf("keyed by body %s", strings.TrimPrefix(c.Key.Name.Value, "/"))
	}
	items := []Item{
		{Label: "Broker", Text: fmt.Sprintf("It consumes %s %s %s, %s. It has no HTTP route and checks no signature: the broker adapter in the service's command (runtime/idembroker/%s) hands it each message and acknowledges it once the outcome is decided.", b.Kind.Value.Title(), b.Kind.Value.ChannelField(), b.Channel.Value, key, b.Kind.Value)},
		{Label: "Message", Text: brokerMessageSentence(c)},
		{Label: "Consumer", Text: consumerNameSentence(op)},
		{Label: "Once", Text: fmt.Sprintf("The handler runs in one transaction with the message's inbox row, so its changes and its effects commit exactly once. A redelivery of a processed message is acknowledged without running the handler; the same key with a different body is refused and acknowledged without running it. Concurrent deliveries of one message wait for the first (up to %s, then the delivery is handed back to the broker).", human(c.WaitTimeout.Value))},
		{Label: "Failures", Text: fmt.Sprintf("A body that does not match the schema, or a handler that fails, leaves nothing of its changes; the attempt is counted in the inbox (not by the broker) and the message is handed back for redelivery. After %d failed attempts the message is dead-lettered and acknowledged, kept with its body: `idemgen ops messages` lists it and `idemgen ops retry-message` hands it to the consumer's `Redrive` for one more delivery.", cons.MaxAttempts.Value)},
		{Label: "Retention", Text: fmt.Sprintf("A processed message's key is remembered for %s; a delivery after that runs the handler as a new message, so the retention must outlast the longest a publisher may send a message again.", human(c.Retention.Value))},
	}
	if src := overlaySentence(op); src != "" {
		items = append([]Item{{Label: "Source", Text: src}}, items...)
	}
	return append(items, effectsItem(c))
}

// brokerMessageSentence says what makes two messages the same for a
// broker consumer: its key within its source, never its body's hash.
func brokerMessageSentence(c *spec.Contract) string {
	src := c.Consumer.Source.Value
	if c.Key.In.Value == spec.KeyInBody {
		return fmt.Sprintf("A message is a redelivery of an earlier one when its body's `%s` member (a string, or an integer's digits) is the same, from the same source, `%s`: a message published again under another broker id is still recognised. A body without it fails the delivery.", c.Key.Name.Value, src)
	}
	return fmt.Sprintf("A message is a redelivery of an earlier one when it carries the same broker message id from the same source, `%s`; a message published again under another id is a new message.", src)
}
