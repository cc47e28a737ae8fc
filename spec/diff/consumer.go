package diff

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
)

// consumer compares the inbox side of two contracts of a webhook: where
// its messages come from, its name in the inbox, its sender, its source
// and its poison policy.
func (c *contracts) consumer() {
	b, h := c.b.Consumer, c.h.Consumer
	if b == nil || h == nil {
		return
	}
	if bw, hw := brokerWords(b.Broker), brokerWords(h.Broker); bw != hw {
		c.add("consumer-broker-changed", "broker", fmt.Sprintf("broker %s → %s", bw, hw),
			fmt.Sprintf("The consumer no longer reads %s: a message published there and not yet processed is never delivered to it, and one that arrives from the new place with an id already processed under the old is a new message unless its key is a body field.", bw),
			brokerPos(b.Broker, c.b.Pos), brokerPos(h.Broker, c.h.Pos))
	}
	if b.Name.Value != h.Name.Value {
		c.add("consumer-name-changed", "consumer", fmt.Sprintf("consumer %s → %s%s", b.Name.Value, h.Name.Value, nameOrigin(h.Name)),
			fmt.Sprintf("The inbox keys a message by (source, consumer, message id): every message processed by %s is unknown to %s, so a redelivery of one runs the handler a second time. %s", b.Name.Value, h.Name.Value, keepName(b.Name.Value)),
			b.Name.Pos, h.Name.Pos)
	}
	if b.Source.Value != h.Source.Value {
		c.add("consumer-source-changed", "source", fmt.Sprintf("source %s → %s", b.Source.Value, h.Source.Value),
			fmt.Sprintf("The inbox keys a message by its source: a redelivery of a webhook processed under %s, arriving after the change, is not recognised and runs the handler a second time.", b.Source.Value),
			fieldOr(b.Source.Pos, c.b.Pos), fieldOr(h.Source.Pos, c.h.Pos))
	}
	if b.Sender.Value != h.Sender.Value {
		c.add("consumer-sender-changed", "sender", fmt.Sprintf("sender %s → %s", senderWords(b.Sender), senderWords(h.Sender)),
			"Nothing recorded changes; check the retention against the new sender's retry horizon (IDEM041).",
			fieldOr(b.Sender.Pos, c.b.Pos), fieldOr(h.Sender.Pos, c.h.Pos))
	}
	change := fmt.Sprintf("max-attempts %d → %d", b.MaxAttempts.Value, h.MaxAttempts.Value)
	switch {
	case h.MaxAttempts.Value < b.MaxAttempts.Value:
		c.add("consumer-max-attempts-lowered", "max-attempts", change,
			fmt.Sprintf("A message that already failed %d times or more is dead-lettered at its next failure instead of being retried.", h.MaxAttempts.Value),
			b.MaxAttempts.Pos, h.MaxAttempts.Pos)
	case h.MaxAttempts.Value > b.MaxAttempts.Value:
		c.add("consumer-max-attempts-raised", "max-attempts", change,
			"Messages already dead-lettered stay dead until support retries them; failing ones get more attempts.",
			b.MaxAttempts.Pos, h.MaxAttempts.Pos)
	}
}

// keepName advises how a consumer keeps the messages processed under its
// old name: pin it, or, when the old name came from an operationId that
// consumer: cannot take, keep that operationId.
func keepName(old string) string {
	if problem := spec.ConsumerNameProblem(old); problem != "" {
		return fmt.Sprintf("The old name came from an operationId that consumer: cannot pin (%s): to keep the consumer's messages, keep its operationId %s.", problem, old)
	}
	return fmt.Sprintf("To keep the consumer's messages, pin its old name: write consumer: %s in its x-idempotency block.", old)
}

// nameOrigin says, after a consumer's new name, that it is its renamed
// operationId when no consumer pins it.
func nameOrigin(n spec.Field[string]) string {
	if n.Set {
		return ""
	}
	return " (its operationId; no consumer: pins the name)"
}

// senderWords names a sender, or says there is none.
func senderWords(s spec.Field[spec.Sender]) string {
	if !s.Set {
		return "(none)"
	}
	return string(s.Value)
}

// brokerWords names where a consumer's messages come from: "JetStream
// subject bank.settlements", or HTTP for a webhook.
func brokerWords(b *spec.Broker) string {
	if b == nil {
		return "(none: HTTP, signed)"
	}
	return fmt.Sprintf("%s %s %s", b.Kind.Value.Title(), b.Kind.Value.ChannelField(), b.Channel.Value)
}

// brokerPos is where b is declared, or the contract's block at when there
// is no broker.
func brokerPos(b *spec.Broker, at spec.Position) spec.Position {
	if b == nil {
		return at
	}
	return b.Pos
}
