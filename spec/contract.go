package spec

import (
	"fmt"
	"time"
)

// Position is a place in a source file. Line and Col count from 1; a zero
// Position means the place is unknown.
type Position struct {
	File string
	Line int
	Col  int
}

// String formats the position as file:line:col, the form editors and CI
// annotations understand.
func (p Position) String() string {
	switch {
	case p.File == "":
		return "-"
	case p.Line == 0:
		return p.File
	default:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
}

// Before reports whether p sorts before q: by file, then line, then column.
func (p Position) Before(q Position) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Field is one contract value with the place it came from. Set is false when
// neither the operation nor the document defaults gave the value and it holds
// the built-in default; Pos then points at the x-idempotency block.
type Field[T any] struct {
	Value T
	Pos   Position
	Set   bool
}

// KeyLocation says where a request carries its idempotency key.
type KeyLocation string

// The places an idempotency key can come from.
const (
	KeyInHeader KeyLocation = "header"
	KeyInBody   KeyLocation = "body"
)

// Concurrency says what a request gets while the first attempt with the same
// key is still running.
type Concurrency string

// The concurrency policies.
const (
	ConcurrencyWait   Concurrency = "wait"
	ConcurrencyReject Concurrency = "reject"
)

// Replay says what a completed retry answers with.
type Replay string

// The replay policies.
const (
	ReplayStored  Replay = "stored"
	ReplayCurrent Replay = "current"
)

// Mode is how an operation is executed.
type Mode string

// The execution modes.
const (
	ModeAtomic Mode = "atomic"
	ModePhased Mode = "phased"
)

// OnUnknown is what happens to a side effect whose outcome is unknown.
type OnUnknown string

// The policies for an effect with an unknown outcome.
const (
	OnUnknownRetry  OnUnknown = "retry"
	OnUnknownVerify OnUnknown = "verify"
	OnUnknownHalt   OnUnknown = "halt"
)

// Contract is the merged idempotency contract of one operation: its own
// x-idempotency block over the document's x-idempotency-defaults over the
// built-in defaults.
type Contract struct {
	// Pos is where the operation's x-idempotency block starts.
	Pos Position

	Key         Key
	NaturalKey  []Field[string]
	Scope       Field[[]string]
	Fingerprint Fingerprint
	Retention   Field[time.Duration]
	Tombstone   Field[time.Duration]
	Concurrency Field[Concurrency]
	WaitTimeout Field[time.Duration]
	Replay      Field[Replay]
	// StoreFailures lists the final failures that are stored and replayed:
	// "4xx" or a single status code such as "409".
	StoreFailures Field[[]string]
	Mode          Field[Mode]
	Lease         Field[time.Duration]
	Effects       []Effect
	// Steps are the steps of a phased operation in the order it runs
	// them; empty when the contract declares none.
	Steps []Step
	// Consumer is the inbox side of a webhook's contract; nil on an
	// operation under paths.
	Consumer *Consumer
}

// Consumer is what a webhook's contract says of the consumer that
// receives it: the message's key is its id (webhook-id unless the block's
// key says otherwise), its scope the sender, and a message that keeps
// failing is dead-lettered after MaxAttempts.
type Consumer struct {
	// Name names the consumer in the inbox, which keys each message by
	// (source, consumer, message id): the block's consumer, else the
	// operationId (not Set then). Renaming it makes every message
	// processed under the old name new again.
	Name Field[string]
	// Sender is the kind of sender, whose retry horizon the retention must
	// outlast; not Set when the block names none.
	Sender Field[Sender]
	// Source names the sender: the scope of its message ids. Its default
	// is the webhook's name.
	Source Field[string]
	// MaxAttempts is the poison policy: the failed attempts, counted in
	// the inbox, after which the message is dead-lettered.
	MaxAttempts Field[int]
	// Broker is the broker the messages come from; nil when they arrive
	// over HTTP, signed, as webhooks.
	Broker *Broker
}

// Sender is a kind of webhook sender with a known retry schedule.
type Sender string

// The known senders.
const (
	// SenderStandardWebhooks signs as Standard Webhooks 1.0 does; its
	// example schedule retries for 75h35m.
	SenderStandardWebhooks Sender = "standard-webhooks"
	// SenderSvix is Svix, which retries for about 27.6 hours.
	SenderSvix Sender = "svix"
)

// Horizon returns how long the sender retries a webhook after its first
// attempt, by its published schedule.
func (s Sender) Horizon() time.Duration {
	switch s {
	case SenderStandardWebhooks:
		// 5s, 5m, 30m, 2h, 5h, 10h, 14h, 20h, 24h
		return 75*time.Hour + 35*time.Minute + 5*time.Second
	case SenderSvix:
		// 5s, 5m, 30m, 2h, 5h, 10h, 10h
		return 27*time.Hour + 35*time.Minute + 5*time.Second
	}
	return 0
}

// DefaultMaxAttempts is a webhook consumer's max-attempts when its block
// gives none.
const DefaultMaxAttempts = 5

// WebhookKeyHeader is the header a webhook's key is read from when its
// block names none: Standard Webhooks' webhook-id.
const WebhookKeyHeader = "webhook-id"

// Key says how a retry of an operation is recognised.
type Key struct {
	In Field[KeyLocation]
	// Name is a header name when In is header and a JSON pointer into the
	// request body when In is body.
	Name      Field[string]
	Required  Field[bool]
	MaxLength Field[int]
}

// Fingerprint selects the request content that makes two requests the same
// operation. Each entry is a JSON pointer into the request body.
type Fingerprint struct {
	// Include is empty when the whole body is significant.
	Include   []Field[string]
	Exclude   []Field[string]
	Unordered []Field[string]
}

// Effect is a side effect the operation enqueues through the outbox.
type Effect struct {
	Pos       Position
	Name      Field[string]
	OnUnknown Field[OnUnknown]
	// Payload is the reference of the schema of the effect's payload, a
	// component schema such as #/components/schemas/ConfirmationEmail;
	// unset, the payload is bytes the business method chooses.
	Payload Field[string]
}

// Step is one step of a phased operation. A local step runs in its own
// transaction and commits a recovery point, named by the step: an
// operation in flight resumes after the last one it committed. An
// external one calls outside the database after the commit before it,
// with a step key derived from the operation and the step's name, which
// the provider receives. The last step records the operation's answer.
type Step struct {
	Pos  Position
	Name Field[string]
	// External reports whether the step calls outside the database; a
	// built-in false, positioned at the step, when the step does not say.
	External Field[bool]
	// OnUnknown is what happens when an external call's outcome is
	// unknown. It has no default: unset, it is not Set.
	OnUnknown Field[OnUnknown]
	// Timeout is how long one external call may take. It has no default:
	// unset, it is not Set.
	Timeout Field[time.Duration]
	// Output is the reference of the component schema of the state the
	// step hands to the next, such as #/components/schemas/Charge; unset,
	// the step hands on nothing.
	Output Field[string]
}
