package idem

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/internal/core"
	"github.com/idemgen/idemgen/runtime/internal/inbox"
)

// Message is one delivery of a message to a Consumer: its Source (the
// sender, or the broker's stream or queue: the scope of its id), its ID
// (webhook-id, a broker's message id: stable across redeliveries, never a
// hash of the body), its Body and its TraceContext.
type Message = inbox.Message

// MessageOutcome is what became of a delivered message. An adapter
// acknowledges the message to its sender or broker when Ack says so, and
// only after Deliver returned: every outcome but MessageRetry.
type MessageOutcome = inbox.Outcome

// The outcomes of Consumer.Deliver.
const (
	MessageProcessed    = inbox.Processed    // the handler's changes committed with the inbox row: acknowledge
	MessageDuplicate    = inbox.Duplicate    // processed before, the handler did not run: acknowledge
	MessageRetry        = inbox.Retry        // the handler failed, nothing kept but the attempt: redeliver
	MessageDeadLettered = inbox.DeadLettered // attempts spent, kept for support (idemgen ops): acknowledge
	MessageMismatch     = inbox.Mismatch     // the id is known with another body, the handler did not run: refuse
)

// DeliveryResult is what Deliver did with a message: its Outcome, the
// Attempts the inbox row counts, the OperationID its effects carry, and
// the handler's Err of a failed attempt.
type DeliveryResult = inbox.Result

// ErrMessageBusy is returned by Deliver when another delivery of the same
// message ran past ConsumerConfig.WaitTimeout, or a lock on the inbox
// table outlasted it while the message was read, claimed or its failure
// counted (the database ends that wait): nothing was done or
// counted, redeliver.
var ErrMessageBusy = inbox.ErrBusy

// ErrInvalidMessage is wrapped by Deliver's error for a message without a
// source, or whose id is empty, longer than ConsumerConfig.MaxIDLength,
// not UTF-8 or holds a control character (the error then wraps
// ErrKeyMalformed too): the handler did not run and nothing of it was
// kept. An adapter drops it (dead-letters it where its broker can) rather
// than redelivering it: it can never be processed.
var ErrInvalidMessage = inbox.ErrInvalidMessage

// Delivery is a message as its handler gets it: the message, and the
// operation its effects are enqueued under.
type Delivery struct {
	Message *Message
	opRef
}

// opRef carries the delivery's operation for the runtime's generated-code
// face (idemimpl), unexported.
type opRef = core.OpRef

// OperationID returns the id the message's effects carry, derived from its
// source, consumer and id.
func (d *Delivery) OperationID() string { return core.OperationOf(d).ID }

// Enqueue writes the effect name with payload to the outbox through tx,
// the handler's transaction, as an operation's effect: executed by the
// Worker once the message's changes commit, with a key stable across
// deliveries (which it returns). onUnknown is the effect's policy when
// its outcome is unknown: retry, verify or halt.
func (d *Delivery) Enqueue(ctx context.Context, tx pgx.Tx, name, onUnknown string, payload []byte) (string, error) {
	return core.OperationOf(d).Enqueue(ctx, tx, core.Effect{Name: name, OnUnknown: onUnknown, Payload: payload})
}

// MessageFunc handles a message in the inbox's transaction: what it does
// through tx commits with the message's inbox row, or not at all.
// Returning an error rolls it back and counts a failed attempt. tx's
// Commit and Rollback fail with ErrTxOwnedByExecutor.
type MessageFunc func(ctx context.Context, tx pgx.Tx, d *Delivery) error

// ConsumerConfig configures a Consumer.
type ConsumerConfig struct {
	// Name names the consumer: each consumer of a message processes it
	// once.
	Name string
	// MaxAttempts is the poison policy: the failed attempts, counted in
	// the inbox row and never by the broker, after which a message is
	// dead-lettered. At least 1.
	MaxAttempts int
	// Retention is how long a processed message is remembered; it must
	// outlast the sender's retry horizon.
	Retention time.Duration
	// WaitTimeout bounds the waits for a concurrent delivery of the same
	// message and for a lock on the inbox table (then ErrMessageBusy):
	// those before the handler runs together, and counting a failed
	// attempt again; 0 means 30 s.
	WaitTimeout time.Duration
	// MaxIDLength is the longest message id accepted, in bytes; 0 means
	// 255. Deliver refuses a longer id, an empty one, and one that is not
	// UTF-8 or holds a control character (ErrInvalidMessage).
	MaxIDLength int
	// Handler handles each message.
	Handler MessageFunc
}

// inboxConsumer names the runtime's consumer for embedding, unexported.
type inboxConsumer = inbox.Consumer

// Consumer is an idempotent consumer (transactional inbox): it runs its
// handler once per message, keyed by (source, consumer name, message id),
// writing the inbox row in the handler's own transaction. Deliver returns
// the outcome an adapter acknowledges on. It is safe for concurrent use,
// from any number of processes.
type Consumer struct {
	*inboxConsumer
}

// NewConsumer returns a Consumer running on exec's pool and schema; its
// times (received, processed, retention's end) are the database's now().
func NewConsumer(exec *Executor, cfg ConsumerConfig) (*Consumer, error) {
	var h inbox.Func
	if cfg.Handler != nil {
		h = func(ctx context.Context, tx pgx.Tx, op *core.Operation, m *inbox.Message) error {
			return cfg.Handler(ctx, tx, &Delivery{Message: m, opRef: core.RefTo(op)})
		}
	}
	var e *core.Executor
	if exec != nil {
		e = exec.coreExecutor
	}
	c, err := inbox.New(inbox.Config{Executor: e, Name: cfg.Name, MaxAttempts: cfg.MaxAttempts,
		Retention: cfg.Retention, WaitTimeout: cfg.WaitTimeout, MaxIDLength: cfg.MaxIDLength, Handler: h})
	if err != nil {
		return nil, err
	}
	return &Consumer{c}, nil
}
