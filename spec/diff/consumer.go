package diff

import (
	"fmt"

	"github.com/idemgen/idemgen/spec"
)

// consumer compares the inbox side of two contracts of a webhook: its
// sender, its source and its poison policy.
func (c *contracts) consumer() {
	b, h := c.b.Consumer, c.h.Consumer
	if b == nil || h == nil {
		return
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

// senderWords names a sender, or says there is none.
func senderWords(s spec.Field[spec.Sender]) string {
	if !s.Set {
		return "(none)"
	}
	return string(s.Value)
}
