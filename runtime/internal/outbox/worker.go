package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/internal/outbox/internal/sqlcdb"
	"github.com/idemgen/idemgen/runtime/internal/tables"
	"github.com/idemgen/idemgen/runtime/internal/tracing"
)

// Config configures a Worker; zero durations and counts take the defaults
// documented on each field.
type Config struct {
	Pool      *pgxpool.Pool       // required
	Schema    string              // schema of the idempotency tables; "" follows the search_path
	Providers map[string]Provider // by effect name; the worker claims only these effects (required, not empty)
	Logger    *slog.Logger        // optional
	Observe   func(EffectEvent)   // optional
	Tracer    tracing.Tracer      // nil records no spans
	Now       func() time.Time    // the attempts' finish times in their history; nil means time.Now. Due times and leases are the database's
	ID        string              // the worker's name in leases and attempts; default host-pid-random

	Lease           time.Duration                   // how long a claim holds an effect; 1m. A call gets until the lease's last tenth.
	MaxAttempts     int                             // attempts before dead; 10
	Backoff         func(attempt int) time.Duration // the wait after attempt n; default Backoff
	Concurrency     int                             // calls at once; 8. Behind a backlog the worker claims ahead, up to 2 × ClaimAhead times this held (see nextClaim)
	ClaimAhead      int                             // behind a backlog, how many times Concurrency a claim asks for; 0 means 3, 1 claims only for free call slots; negative is refused
	PollInterval    time.Duration                   // the wait between claims when none was due; 100ms
	GaugeInterval   time.Duration                   // between readings of the oldest due effect; 5s
	ShutdownTimeout time.Duration                   // how long Run lets running calls finish after its context ends; 10s
	RecordBatch     int                             // outcomes recorded in one statement at most; 100
	RecordDelay     time.Duration                   // how long an outcome may wait for others to share its statement; 10ms, and never past its call's deadline
}

// probeWindow is how many due effects past its cursor every other claim
// reads to find the scopes queued behind the oldest ones (see
// ClaimEffects): a small scope's effects behind a large scope's backlog
// of n are found within 2n/probeWindow claims. The claims in between, and
// those that would probe an outbox holding a single scope, read no probe
// and use the first-in-first-out ClaimOldestEffects, which costs less
// than ClaimEffects even without a probe's rows (docs/benchmarks.md).
const probeWindow = 128

// resumeBefore is how long before the last claim that saw an outbox of
// one scope a probe resumes once another scope comes: an effect is due
// from its transaction's start, so one whose transaction began before
// that claim and committed after it is due before it. Those of
// transactions that began up to resumeBefore earlier are found in the
// probe's first reads, those of longer ones on its next pass from the
// start; it re-reads at most resumeBefore's worth of the one scope's
// backlog.
const resumeBefore = 100 * time.Millisecond

// Worker executes due effects; see Run.
type Worker struct {
	cfg     Config
	effects []string
	schema  *tables.Schema // cfg.Schema: every statement goes out in it, its lock waits bounded (see bounded)
	// The claims' fairness state, under fair (two claims may be in flight,
	// each reading it when sent and updating it when it returns): the due
	// time after which the next probe reads, whether the next claim is one
	// that probes, and whether the last claim that did not probe saw, or
	// could not rule out, a scope besides the one it claimed (a probe
	// finds none in an outbox of a single scope; once one comes, the probe
	// starts resumeBefore before the last claim that saw none).
	fair    sync.Mutex
	probe   pgtype.Timestamptz
	probing bool
	others  bool
}

// New checks cfg and fills in its defaults.
func New(cfg Config) (*Worker, error) {
	if cfg.Pool == nil {
		return nil, errors.New("idem: WorkerConfig.Pool is nil")
	}
	if len(cfg.Providers) == 0 {
		return nil, errors.New("idem: WorkerConfig.Providers is empty: the worker would claim nothing")
	}
	for name, p := range cfg.Providers {
		if p == nil {
			return nil, fmt.Errorf("idem: WorkerConfig.Providers[%q] is nil", name)
		}
	}
	if cfg.ClaimAhead < 0 {
		return nil, fmt.Errorf("idem: WorkerConfig.ClaimAhead is %d, want 0 (the default, 3), 1 (no claiming ahead) or more", cfg.ClaimAhead)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Observe == nil {
		cfg.Observe = func(EffectEvent) {}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tracer == nil {
		cfg.Tracer = tracing.Noop{}
	}
	if cfg.ID == "" {
		cfg.ID = defaultID()
	}
	setDefault(&cfg.Lease, time.Minute)
	setDefault(&cfg.MaxAttempts, 10)
	setDefault(&cfg.Concurrency, 8)
	setDefault(&cfg.ClaimAhead, defaultClaimAhead)
	setDefault(&cfg.PollInterval, 100*time.Millisecond)
	setDefault(&cfg.GaugeInterval, 5*time.Second)
	setDefault(&cfg.ShutdownTimeout, 10*time.Second)
	setDefault(&cfg.RecordBatch, 100)
	setDefault(&cfg.RecordDelay, 10*time.Millisecond)
	if cfg.Backoff == nil {
		cfg.Backoff = Backoff
	}
	return &Worker{
		cfg:     cfg,
		effects: slices.Sorted(maps.Keys(cfg.Providers)),
		schema:  tables.NewSchema(cfg.Schema),
		probe:   probeFromStart,
		others:  true,
	}, nil
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

func defaultID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d-%08x", host, os.Getpid(), rand.Uint32())
}

// errShutDown cancels the calls still running when Run's shutdown timeout
// ends.
var errShutDown = errors.New("idem: the worker shut down before the call ended")

// Run claims and executes due effects until ctx ends, then stops claiming,
// hands back the effects claimed ahead and not called (see release), lets
// running calls finish for up to ShutdownTimeout, records the outcomes of
// those that finished and returns nil. Calls still running then have their
// context cancelled and are left to their leases: nothing is recorded for
// them, even should they return later, and after the lease another worker
// takes them over as attempts whose outcome is unknown.
//
// A claim statement takes as many due effects as there are free call
// slots; while a backlog lasts the worker claims ahead of them, up to
// ClaimAhead times Concurrency a statement and two statements in flight
// (see nextClaim), so that a slot that frees finds an effect waiting
// instead of waiting a claim's round trip. Calls run concurrently,
// Concurrency at most, and their outcomes are recorded in batches (see
// recorder).
func (w *Worker) Run(ctx context.Context) error {
	calls, cancelCalls := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelCalls(nil)
	rec := w.newRecorder(ctx)
	go rec.run()
	var wg sync.WaitGroup
	ended := make(chan struct{}, w.cfg.Concurrency) // one per call that ended; never more than Concurrency run
	// The first poll comes at a random point of the interval, so that
	// workers started together do not poll together: an effect committed
	// between polls then waits for the next poll of any of them.
	poll := time.NewTimer(rand.N(w.cfg.PollInterval) + 1)
	defer poll.Stop()
	gauge := time.NewTicker(w.cfg.GaugeInterval)
	defer gauge.Stop()
	wake := time.NewTimer(time.Hour)
	wake.Stop()
	defer wake.Stop()
	claimLog := &outageLog{logger: w.cfg.Logger, what: "claiming effects", now: time.Now}
	gaugeLog := &outageLog{logger: w.cfg.Logger, what: "reading the oldest due effect", now: time.Now}
	w.readGauge(ctx, gaugeLog)
	s := &schedule{polled: true, claims: make(chan claimResult, maxClaimsInFlight)} // the first claim goes out at once
	for ctx.Err() == nil {
		for s.running < w.cfg.Concurrency && len(s.waiting) > 0 {
			c := s.waiting[0]
			s.waiting = s.waiting[1:]
			s.running++
			wg.Go(func() {
				w.execute(calls, c, rec)
				ended <- struct{}{}
			})
		}
		// Only effects that still find no slot are handed back, however
		// long their claim took.
		now := time.Now()
		if stale := s.stale(now, w.cfg.Lease/10); len(stale) > 0 {
			w.release(ctx, stale, "it waited a tenth of its lease for a call slot")
			// The calls are slow: claim no more than the free slots for a
			// while, on the poll, which also finds what was handed back.
			s.aheadFrom, s.backlog = now.Add(w.cfg.Lease), false
		}
		n, at := w.nextClaim(s, now)
		for ; n > 0; n, at = w.nextClaim(s, now) {
			s.inFlight++
			s.asked += n
			s.polled, s.gatherFrom = false, time.Time{}
			go func(n int) {
				out, err := w.claimDue(ctx, n)
				s.claims <- claimResult{out: out, err: err, asked: n}
			}(n)
		}
		if stale := s.staleAt(w.cfg.Lease / 10); !stale.IsZero() && (at.IsZero() || stale.Before(at)) {
			at = stale
		}
		var due <-chan time.Time
		if !at.IsZero() {
			wake.Reset(max(at.Sub(now), 0))
			due = wake.C
		}
		select {
		case <-ctx.Done():
		case r := <-s.claims:
			s.inFlight--
			s.asked -= r.asked
			s.ended = false
			switch {
			case r.err == nil:
				claimLog.ok()
			case ctx.Err() == nil:
				claimLog.fail(r.err)
			}
			s.waiting = append(s.waiting, r.out...)
			s.backlog = r.err == nil && len(r.out) == r.asked
		case <-ended:
			s.running--
			s.ended = true
		case <-poll.C:
			poll.Reset(w.cfg.PollInterval)
			s.polled = true
		case <-due:
		case <-gauge.C:
			w.readGauge(ctx, gaugeLog)
		}
		wake.Stop()
	}
	for ; s.inFlight > 0; s.inFlight-- { // what they claimed before the context ended is handed back with the rest
		r := <-s.claims
		s.waiting = append(s.waiting, r.out...)
	}
	if len(s.waiting) > 0 {
		w.release(ctx, s.waiting, "the worker stopped")
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	timer := time.NewTimer(w.cfg.ShutdownTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		cancelCalls(errShutDown) // a call that ignores its context may still run; it records nothing
	}
	rec.stop()
	return nil
}

// claimed is one effect a claim leased to this worker.
type claimed struct {
	scope       string
	operationID pgtype.UUID
	seq         int32
	operation   string
	effect      string
	key         string
	onUnknown   string
	payload     []byte
	attempt     int32 // attempts since it was enqueued or retried by support: the budget MaxAttempts spends
	token       int64 // its fencing token, which numbers the attempt for its history and its provider
	lastOutcome string
	trace       string    // the trace context of the request that enqueued it
	recordBy    time.Time // on this host's monotonic clock: the end of the call's time, as measured from before the claim, so before the lease the database gave ends
	claimedAt   time.Time // on this host's monotonic clock, from before the claim
	dueAt       pgtype.Timestamptz
}

// probeFromStart is the probe cursor before every due effect.
var probeFromStart = pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}

// claimDue claims up to n due effects, scopes taking turns: every other
// claim probes, its rows going first within a turn, and moves the probe
// cursor on, unless the claim before it saw an outbox of a single scope;
// the others take the oldest due effects.
func (w *Worker) claimDue(ctx context.Context, n int) ([]claimed, error) {
	start := time.Now()
	recordBy := start.Add(w.cfg.Lease - w.cfg.Lease/10)
	wait := w.claimWait()
	w.fair.Lock()
	probing := w.probing && w.others
	w.probing = !w.probing
	after := w.probe
	w.fair.Unlock()
	if !probing {
		rows, err := w.bounded(wait).ClaimOldestEffects(ctx, sqlcdb.ClaimOldestEffectsParams{Effects: w.effects,
			MaxClaims: int32(n), LeaseSeconds: w.cfg.Lease.Seconds(), Worker: w.cfg.ID})
		if len(rows) > 0 { // none: nothing due that a probe could find either
			w.fair.Lock()
			w.others = rows[0].OtherScopes
			if !w.others { // a scope that comes is due after this claim, or shortly before: the probe resumes there
				w.probe = rows[0].CheckedAt
				w.probe.Time = w.probe.Time.Add(-resumeBefore)
			}
			w.fair.Unlock()
		}
		out := make([]claimed, len(rows))
		for i, r := range rows {
			out[i] = claimedOf(sqlcdb.ClaimEffectsRow{Scope: r.Scope, OperationID: r.OperationID, Seq: r.Seq,
				Operation: r.Operation, Effect: r.Effect, EffectKey: r.EffectKey, OnUnknown: r.OnUnknown, Payload: r.Payload,
				Attempts: r.Attempts, FencingToken: r.FencingToken, LastOutcome: r.LastOutcome, TraceContext: r.TraceContext,
				DueAt: r.DueAt}, start, recordBy)
		}
		return out, claimError(err, wait)
	}
	rows, err := w.bounded(wait).ClaimEffects(ctx, sqlcdb.ClaimEffectsParams{Effects: w.effects,
		MaxClaims: int32(n), LeaseSeconds: w.cfg.Lease.Seconds(), Worker: w.cfg.ID,
		ProbeAfter: after, ProbeWindow: probeWindow})
	if err != nil {
		return nil, claimError(err, wait)
	}
	next := probeFromStart // nothing claimed: nothing due past the cursor either, or everything locked
	if len(rows) > 0 {
		next = rows[0].NextAt
		if rows[0].NextInclusive { // the probe reads after its bound: a microsecond (timestamptz's unit) before
			next.Time = next.Time.Add(-time.Microsecond)
		}
	}
	w.fair.Lock()
	w.probe = next
	w.fair.Unlock()
	out := make([]claimed, len(rows))
	for i, r := range rows {
		out[i] = claimedOf(r, start, recordBy)
	}
	return out, nil
}

// claimedOf is the effect of a claim's row, claimed from claimedAt, to be
// recorded by recordBy.
func claimedOf(r sqlcdb.ClaimEffectsRow, claimedAt, recordBy time.Time) claimed {
	return claimed{scope: r.Scope, operationID: r.OperationID, seq: r.Seq, operation: r.Operation, effect: r.Effect,
		key: r.EffectKey, onUnknown: r.OnUnknown, payload: r.Payload, attempt: r.Attempts, token: r.FencingToken,
		lastOutcome: r.LastOutcome, trace: r.TraceContext, recordBy: recordBy, claimedAt: claimedAt, dueAt: r.DueAt}
}

// readGauge reports the age of the oldest due effect; failures go to
// failures.
func (w *Worker) readGauge(ctx context.Context, failures *outageLog) {
	seconds, err := w.bounded(w.claimWait()).OldestDueAge(ctx)
	if err != nil {
		if ctx.Err() == nil {
			failures.fail(err)
		}
		return
	}
	failures.ok()
	age := max(time.Duration(seconds*float64(time.Second)), 0)
	w.cfg.Observe(EffectEvent{Kind: EventOldestDue, Age: age})
}

// timestamptz is t as a timestamptz parameter.
func timestamptz(t time.Time) pgtype.Timestamptz { return pgtype.Timestamptz{Time: t, Valid: true} }
