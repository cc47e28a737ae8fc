package inbox

import (
	"crypto/sha256"
	"fmt"
)

// Outcome is what became of a delivered message; an adapter acknowledges
// the message to its sender or broker when Ack says so, and only after
// Deliver returned.
type Outcome int

// The outcomes of Deliver.
const (
	// Processed: the handler ran and its changes committed with the inbox
	// row. Acknowledge.
	Processed Outcome = iota + 1
	// Duplicate: the message was processed before; the handler did not
	// run. Acknowledge.
	Duplicate
	// Retry: the handler failed, its changes rolled back, and the message
	// has attempts left. Redeliver (reject or nack it).
	Retry
	// DeadLettered: the message's attempts are spent (by this delivery or
	// before); it is kept for support (idemgen ops). Acknowledge:
	// redelivering cannot help.
	DeadLettered
	// Mismatch: the inbox holds the message's id with another body; the
	// handler did not run. Acknowledge or refuse, never redeliver as is.
	Mismatch
)

var outcomeNames = [...]string{Processed: "processed", Duplicate: "duplicate", Retry: "retry",
	DeadLettered: "dead-lettered", Mismatch: "mismatch"}

// String returns the outcome's name, such as dead-lettered.
func (o Outcome) String() string {
	if o >= Processed && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Ack reports whether the message is to be acknowledged: every outcome
// but Retry.
func (o Outcome) Ack() bool { return o != Retry && o >= Processed && int(o) < len(outcomeNames) }

// Result is what Deliver did with a message.
type Result struct {
	Outcome Outcome
	// Attempts is the inbox row's count of the message's attempts, this
	// one included when it ran: the failed ones and the one that
	// succeeded.
	Attempts int
	// OperationID names the message's handling for support and logs, and
	// is the operation id of the effects it enqueued: derived from the
	// source, the consumer and the message id, so stable across
	// deliveries.
	OperationID string
	// Err is the handler's error of a Retry or of the delivery that made
	// the message DeadLettered.
	Err error
}

// operationID derives a message's operation id from its key: a UUID of
// version 8 (custom) holding the first bytes of a SHA-256 of the key.
func operationID(source, consumer, id string) [16]byte {
	h := sha256.New()
	for _, part := range []string{"idem-inbox", source, consumer, id} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x80
	u[8] = u[8]&0x3f | 0x80
	return u
}
