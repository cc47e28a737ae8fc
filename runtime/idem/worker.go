package idem

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/outbox"
)

// EffectCall is one call of an effect's provider: the effect key (stable
// across attempts; pass it on as the external system's idempotency key),
// the attempt number, the effect and operation names and the payload as
// enqueued.
type EffectCall = outbox.EffectCall

// EffectOutcome is a provider's answer to one call; build it with
// EffectDone, EffectNotDone, EffectFailed or EffectUnknown.
type EffectOutcome = outbox.EffectOutcome

// EffectOutcomeKind is what a provider call achieved.
type EffectOutcomeKind = outbox.EffectOutcomeKind

// The outcome kinds. The zero kind is unknown.
const (
	OutcomeUnknown = outbox.OutcomeUnknown // may or may not have happened: the effect's policy decides
	OutcomeDone    = outbox.OutcomeDone    // done
	OutcomeNotDone = outbox.OutcomeNotDone // definitely not done: repeated under every policy
	OutcomeFailed  = outbox.OutcomeFailed  // failed for good: recorded as failed, never repeated
)

// EffectDone is the outcome of a call that took effect.
func EffectDone() EffectOutcome { return EffectOutcome{Kind: OutcomeDone} }

// EffectNotDone is the outcome of a call that definitely did not take
// effect (refused before anything happened): it is repeated after a backoff.
func EffectNotDone(err error) EffectOutcome { return EffectOutcome{Kind: OutcomeNotDone, Err: err} }

// EffectFailed is the outcome of a call the provider refused for good.
func EffectFailed(err error) EffectOutcome { return EffectOutcome{Kind: OutcomeFailed, Err: err} }

// EffectUnknown is the outcome of a call that may or may not have taken
// effect: a time-out, a dropped connection, a 5xx after the request was
// sent. The effect's on-unknown policy decides what follows.
func EffectUnknown(err error) EffectOutcome { return EffectOutcome{Kind: OutcomeUnknown, Err: err} }

// Provider executes one kind of effect for the worker.
type Provider = outbox.Provider

// Verifier is what the provider of an effect whose policy is verify also
// implements: after an unknown outcome the worker asks it first.
type Verifier = outbox.Verifier

// VerifyOutcome is Verify's answer.
type VerifyOutcome = outbox.VerifyOutcome

// Verify's answers.
const (
	VerifyUnknown = outbox.VerifyUnknown // cannot tell: asked again after a backoff
	VerifyDone    = outbox.VerifyDone    // the provider has it: the effect is done, not repeated
	VerifyNotDone = outbox.VerifyNotDone // the provider has no such effect: Do is called
)

// EffectEvent is one observation of the worker.
type EffectEvent = outbox.EffectEvent

// EffectEventKind is what happened to one effect.
type EffectEventKind = outbox.EffectEventKind

// The effect event kinds, for metrics (docs/metrics.md).
const (
	EffectEventDone      = outbox.EventDone      // done (by Do, or Verify said so)
	EffectEventRetried   = outbox.EventRetried   // not done or unknown: scheduled again
	EffectEventVerified  = outbox.EventVerified  // Verify answered after an unknown outcome
	EffectEventHalted    = outbox.EventHalted    // unknown under halt: requires_recovery
	EffectEventDead      = outbox.EventDead      // attempts ran out: dead
	EffectEventFailed    = outbox.EventFailed    // failed for good
	EffectEventFenced    = outbox.EventFenced    // the lease was taken over: nothing recorded
	EffectEventOldestDue = outbox.EventOldestDue // gauge reading: the oldest due effect's age
)

// EffectObserver receives the worker's events, synchronously and from many
// goroutines; it must be quick and safe for concurrent use.
type EffectObserver interface {
	ObserveEffect(EffectEvent)
}

// WorkerConfig configures a Worker. Zero durations and counts take the
// defaults given.
type WorkerConfig struct {
	Pool      *pgxpool.Pool       // required
	Schema    string              // schema of the idempotency tables; "" follows the search_path
	Providers map[string]Provider // by effect name; a worker claims only the effects it has providers for
	Logger    *slog.Logger        // optional
	Observer  EffectObserver      // optional
	Tracer    Tracer              // spans of each attempt, linked to the request that enqueued the effect (runtime/idemotel); nil records none
	Clock     Clock               // the attempts' finish times in their history; nil means SystemClock. Due times and leases are the database's clock
	ID        string              // the worker's name in leases and attempt history; default host-pid-random

	Lease           time.Duration                   // a claim's hold on an effect; 1m. A call must end in the lease's first nine tenths.
	MaxAttempts     int                             // attempts before dead; 10
	Backoff         func(attempt int) time.Duration // the wait after attempt n; default 1s doubling to 10m, minus up to half (jitter)
	Concurrency     int                             // calls at once; 8. Behind a backlog a worker claims ahead, up to 2 × ClaimAhead times this held (see Run)
	ClaimAhead      int                             // behind a backlog, how many times Concurrency a claim asks for; 0 means 3, 1 claims only for free call slots (no claiming ahead); negative is refused
	PollInterval    time.Duration                   // between claims when nothing was due; 100ms
	GaugeInterval   time.Duration                   // between readings of the oldest due effect; 5s
	ShutdownTimeout time.Duration                   // how long running calls may finish after Run's context ends; 10s

	// Outcomes are recorded in batches, each row under its own lease and
	// fencing token: one statement for up to RecordBatch outcomes, sent
	// when that many wait, when the oldest has waited RecordDelay, or
	// when a call's time (the lease's first nine tenths) is up, and when
	// Run stops. A lower delay records sooner; a higher one sends fewer
	// statements under load. A statement waits for a lock (a row's, or a
	// table's under DDL, VACUUM FULL, LOCK TABLE) no longer than the
	// lease's last tenth, ended by the database; one that gives up records
	// none of its outcomes, which are logged, and their leases hand the
	// effects on. A claim (and a reading of the oldest due effect) waits
	// for a table's lock no longer than PollInterval or the lease's tenth,
	// whichever is shorter: it then claims nothing, says so in the log,
	// and the next poll claims again. Handing back effects claimed ahead
	// and not called waits no longer than the lease's tenth; their leases
	// hand them on if it gives up.
	RecordBatch int           // outcomes recorded in one statement at most; 100
	RecordDelay time.Duration // how long an outcome may wait for others to share its statement; 10ms
}

// Worker executes the effects committed operations enqueued. Run several,
// in several processes: each effect is leased to one at a time, and an
// outcome is recorded only under the lease's fencing token.
type Worker struct {
	w *outbox.Worker
}

// NewWorker returns a Worker for cfg.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	oc := outbox.Config{
		Pool: cfg.Pool, Schema: cfg.Schema, Providers: cfg.Providers, Logger: cfg.Logger, ID: cfg.ID,
		Lease: cfg.Lease, MaxAttempts: cfg.MaxAttempts, Backoff: cfg.Backoff, Concurrency: cfg.Concurrency, ClaimAhead: cfg.ClaimAhead,
		PollInterval: cfg.PollInterval, GaugeInterval: cfg.GaugeInterval, ShutdownTimeout: cfg.ShutdownTimeout,
		RecordBatch: cfg.RecordBatch, RecordDelay: cfg.RecordDelay, Tracer: cfg.Tracer,
	}
	if o := cfg.Observer; o != nil {
		oc.Observe = o.ObserveEffect
	}
	if c := cfg.Clock; c != nil {
		oc.Now = c.Now
	}
	w, err := outbox.New(oc)
	if err != nil {
		return nil, err
	}
	return &Worker{w}, nil
}

// Run executes due effects until ctx ends: it claims them, calls their
// providers and records the outcomes, applying each effect's policy to an
// unknown outcome (retry: call again with the same key; verify: ask Verify
// first and call again only on "not done"; halt: requires_recovery).
// Behind a backlog it claims ahead of its free call slots (claims of up to
// ClaimAhead times Concurrency, two in flight; ClaimAhead 1 claims only for
// free slots), so that a slot that frees finds an effect waiting; one that
// waits a tenth of its lease for a slot is handed back uncalled, due again
// where it was, its history row ended as released. After ctx ends it stops claiming, hands back the effects
// claimed ahead, lets running calls finish for up to ShutdownTimeout,
// records the outcomes of those that finished and returns nil; calls
// still running are left to their leases.
func (w *Worker) Run(ctx context.Context) error { return w.w.Run(ctx) }
