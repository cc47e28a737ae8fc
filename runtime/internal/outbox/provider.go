package outbox

import "context"

// EffectCall is one call of an effect's provider.
type EffectCall struct {
	Key       string // the effect key: stable across attempts, the provider's idempotency key
	Attempt   int    // 1 for the first attempt since the effect was enqueued; attempts that only verified count too, and a support retry continues the count
	Effect    string // the effect's name in the contract
	Operation string // the contract's operation that enqueued it
	Payload   []byte // as enqueued
}

// EffectOutcomeKind is what a provider call achieved.
type EffectOutcomeKind int

// The outcome kinds. The zero kind is read as OutcomeUnknown: a provider
// that says nothing cannot be assumed to have done nothing.
const (
	OutcomeUnknown EffectOutcomeKind = iota // the call may or may not have taken effect (a time-out, a dropped connection, a 5xx after sending)
	OutcomeDone                             // the provider did it
	OutcomeNotDone                          // the provider definitely did not do it: safe to repeat
	OutcomeFailed                           // the provider refused for good: never repeated
)

// String returns the kind's name, as recorded in the attempt history.
func (k EffectOutcomeKind) String() string {
	switch k {
	case OutcomeDone:
		return "done"
	case OutcomeNotDone:
		return "not_done"
	case OutcomeFailed:
		return "failed"
	default:
		return "unknown"
	}
}

// EffectOutcome is a provider's answer to one call. Err says why for every kind
// but OutcomeDone; it is recorded as the attempt's error.
type EffectOutcome struct {
	Kind EffectOutcomeKind
	Err  error
}

// Provider executes one kind of effect. Do must pass call.Key on to the
// external system as its idempotency key: the worker repeats a call whose
// outcome it did not record, always under the same key.
type Provider interface {
	Do(ctx context.Context, call EffectCall) EffectOutcome
}

// VerifyOutcome is a provider's answer to whether an effect happened.
type VerifyOutcome int

// The answers of Verify.
const (
	VerifyUnknown VerifyOutcome = iota // the provider cannot tell now; the worker asks again later
	VerifyDone                         // the provider has the effect: it is done and not repeated
	VerifyNotDone                      // the provider has no such effect: the worker calls Do
)

// Verifier is implemented by providers of effects whose policy is verify:
// after an unknown outcome the worker asks Verify before it calls Do again.
type Verifier interface {
	Verify(ctx context.Context, key string) VerifyOutcome
}
