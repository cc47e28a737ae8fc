package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/tracing"
)

// The effect states the worker writes (step 3 of runtime/schema).
const (
	statePending          = "pending"
	stateDone             = "done"
	stateFailed           = "failed"
	stateRequiresRecovery = "requires_recovery"
	stateDead             = "dead"
)

// verdict is what one attempt records.
type verdict struct {
	state   string // the effect's next state
	outcome string // the attempt's outcome, also the effect's last_outcome
	err     string
	kind    string // call, verify, or verify+call
	event   EffectEventKind
	dur     time.Duration
}

// execute runs one claimed effect to a verdict and hands it to rec to be
// recorded.
func (w *Worker) execute(ctx context.Context, c claimed, rec *recorder) {
	// The call must end before the lease does, leaving the last tenth of
	// the lease to record its outcome before another worker may take over:
	// recordBy, on this host's monotonic clock from before the claim.
	ctx, cancel := context.WithDeadline(ctx, c.recordBy)
	defer cancel()
	ctx, span := w.cfg.Tracer.StartEffect(ctx, tracing.Effect{Operation: c.operation, Effect: c.effect,
		OperationID: c.operationID.String(), Attempt: int(c.token), TraceContext: c.trace})
	v := w.decide(ctx, c)
	if v.state == statePending && int(c.attempt) >= w.cfg.MaxAttempts {
		v.state, v.event = stateDead, EventDead
	}
	var callErr error
	if v.err != "" {
		callErr = errors.New(v.err)
	}
	span.End(v.outcome, callErr)
	now := w.cfg.Now()
	var delay time.Duration
	if v.state == statePending {
		delay = w.cfg.Backoff(int(c.attempt))
	}
	// Within the shutdown timeout the outcome is recorded even though Run's
	// context ended: only the fencing token decides whether it still may.
	if errors.Is(context.Cause(ctx), errShutDown) || !rec.add(finished{c: c, v: v, delay: delay, at: now}) {
		w.attemptLog(c).Warn("idem: the worker shut down during the call; its lease will hand the effect on", "outcome", v.outcome)
	}
}

// attemptLog is the logger of one attempt.
func (w *Worker) attemptLog(c claimed) *slog.Logger {
	return w.cfg.Logger.With("effect", c.effect, "effect_key", c.key, "attempt", c.token)
}

// reportRecorded logs and observes an outcome that was recorded.
func (w *Worker) reportRecorded(f finished) {
	c, v := f.c, f.v
	log := w.attemptLog(c)
	switch v.state {
	case stateDead, stateRequiresRecovery:
		log.Warn("idem: effect needs a person", "state", v.state, "outcome", v.outcome, "err", v.err)
	case stateFailed:
		log.Info("idem: effect failed for good", "err", v.err)
	default:
		log.Debug("idem: effect attempt", "state", v.state, "outcome", v.outcome)
	}
	if strings.HasPrefix(v.kind, "verify") {
		w.cfg.Observe(EffectEvent{Kind: EventVerified, Operation: c.operation, Effect: c.effect, Attempt: int(c.attempt)})
	}
	w.cfg.Observe(EffectEvent{Kind: v.event, Operation: c.operation, Effect: c.effect, Attempt: int(c.attempt), Duration: v.dur})
}

// reportFenced logs and observes an outcome refused because another
// worker had taken the effect's lease over.
func (w *Worker) reportFenced(f finished) {
	c := f.c
	w.attemptLog(c).Warn("idem: the effect's lease was taken over before its outcome was recorded; recorded nothing", "outcome", f.v.outcome)
	w.cfg.Observe(EffectEvent{Kind: EventFenced, Operation: c.operation, Effect: c.effect, Attempt: int(c.attempt), Duration: f.v.dur})
}

// decide applies the effect's policy: after an attempt whose outcome is
// unknown (an unknown answer, or a lease that ran out), halt stops and
// verify asks Verify first; then it calls Do and maps its outcome.
func (w *Worker) decide(ctx context.Context, c claimed) verdict {
	p := w.cfg.Providers[c.effect]
	kind := "call"
	if c.lastOutcome == "unknown" || c.lastOutcome == "lost" {
		switch c.onUnknown {
		case "halt":
			return verdict{state: stateRequiresRecovery, outcome: "halted", kind: "none", event: EventHalted,
				err: "the previous attempt's outcome is unknown (" + c.lastOutcome + ") and the policy is halt"}
		case "verify":
			vf, ok := p.(Verifier)
			if !ok {
				return verdict{state: stateRequiresRecovery, outcome: "halted", kind: "none", event: EventHalted,
					err: "the policy is verify but the provider has no Verify method"}
			}
			start := time.Now()
			answer := safeVerify(ctx, vf, c.key)
			switch answer {
			case VerifyDone:
				return verdict{state: stateDone, outcome: "verified_done", kind: "verify", event: EventDone, dur: time.Since(start)}
			case VerifyNotDone:
				kind = "verify+call"
			default:
				return verdict{state: statePending, outcome: "unknown", kind: "verify", event: EventRetried,
					err: "Verify could not tell", dur: time.Since(start)}
			}
		}
	}
	start := time.Now()
	out := safeDo(ctx, p, EffectCall{Key: c.key, Attempt: int(c.token), Effect: c.effect, Operation: c.operation, Payload: c.payload})
	v := verdict{outcome: out.Kind.String(), kind: kind, dur: time.Since(start)}
	if out.Err != nil {
		v.err = out.Err.Error()
	}
	switch out.Kind {
	case OutcomeDone:
		v.state, v.event = stateDone, EventDone
	case OutcomeFailed:
		v.state, v.event = stateFailed, EventFailed
	case OutcomeNotDone:
		v.state, v.event = statePending, EventRetried
	default:
		if c.onUnknown == "halt" {
			v.state, v.event = stateRequiresRecovery, EventHalted
		} else {
			v.state, v.event = statePending, EventRetried
		}
	}
	return v
}

// errPanicked is the error of a provider that panicked: its outcome is
// unknown, since it may have sent its request.
var errPanicked = errors.New("the provider panicked")

func safeDo(ctx context.Context, p Provider, call EffectCall) (out EffectOutcome) {
	defer func() {
		if r := recover(); r != nil {
			out = EffectOutcome{Kind: OutcomeUnknown, Err: fmt.Errorf("%w: %v", errPanicked, r)}
		}
	}()
	return p.Do(ctx, call)
}

func safeVerify(ctx context.Context, v Verifier, key string) (out VerifyOutcome) {
	defer func() {
		if recover() != nil {
			out = VerifyUnknown
		}
	}()
	return v.Verify(ctx, key)
}
