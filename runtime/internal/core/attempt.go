package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
	"github.com/idemgen/idemgen/runtime/internal/tracing"
)

// Attempt is one execution of an operation under its key, as an adapter
// read it from its transport: whose it is, which key, what request, under
// which policy.
type Attempt struct {
	Policy      *Policy         // validated (Policy.Validate); required
	Scope       string          // from a trusted source, never the request's content
	Key         string          // the parsed idempotency key; "" runs unprotected, with no record
	Fingerprint fingerprint.Sum // of the request's significant content
	// Request is the request as the adapter can rebuild it (its own
	// encoding, without credentials), stored with the operation's first
	// checkpoint so that the completer can re-drive an abandoned operation
	// without a client (Redrive). Operations that never checkpoint do not
	// store it.
	Request []byte
	// Current, when set, answers a replay of the completed operation with
	// the current representation of what it created instead of its stored
	// outcome (replay: current; current.go). Nil replays the stored one.
	Current CurrentFunc
}

// attempt is an Attempt as the executor runs it.
type attempt struct {
	Attempt
	op    *Operation
	span  tracing.OperationSpan
	start time.Time // the wall clock at the start, for durations and waits
	// began is when the attempt began by the database's clock, as the read
	// of the record it is answered from tells it (the read's time less
	// this host's time from the start to sending it): a record completed
	// after it was waited for. Zero for an answer from the replay cache.
	began time.Time
	conn  *pgx.Conn // the connection the attempt holds, once acquired
	// token is the fencing token under which this attempt holds a record
	// committed in progress (after a checkpoint, or a takeover); 0 while
	// no such record exists.
	token int64
	// recorded reports that the operation's record row exists in the
	// attempt's transaction or committed: its end updates the row instead
	// of inserting it.
	recorded bool
	// deadlineBound reports that the request's deadline, not the policy,
	// bounded the last wait for the key (lockTimeout).
	deadlineBound bool
	// giveUpDelay is how long after an attempt that stops without a
	// decision, after a checkpoint, its operation may be taken over: 0 for
	// a client's attempt (its retry resumes at once), a backoff for the
	// completer's.
	giveUpDelay time.Duration
}

// Execute runs a on the executor h holds. An attempt without a key runs unprotected: fn in a plain
// transaction, committed when it completes, and nothing recorded. A new
// operation claims the key and runs fn until it decides (Decision); a
// retry of a decided operation is answered from the record (a Replayed
// Result or a *RefusalError), and one whose attempt crashed after a
// checkpoint takes the operation over once its lease ran out and resumes
// it. An error from fn, or a panic in it, rolls the step back and frees
// the key (after a checkpoint: gives the lease up); the panic is
// propagated after the rollback. Every other error is logged here, once;
// those a retry can overcome wrap ErrUnavailable.
func Execute(ctx context.Context, h Holder, a Attempt, fn Func) (*Result, error) {
	e := Of(h)
	if e == nil || a.Policy == nil || fn == nil {
		return nil, errors.New("idem: Execute needs an executor, a policy and a Func")
	}
	id, err := newUUID()
	if err != nil {
		return nil, err
	}
	ctx, at := e.newAttempt(ctx, a, id)
	var res *Result
	switch err = e.requireSchema(ctx, at); {
	case err != nil:
	case a.Key == "":
		res, err = e.unprotected(ctx, at, fn)
	default:
		res, err = e.protected(ctx, at, fn)
	}
	var ref *RefusalError
	if err != nil && !errors.As(err, &ref) {
		e.logFailure(ctx, at, classify(err), err)
		at.span.End(err)
		return res, unavailable(err)
	}
	at.span.End(nil)
	return res, err
}

// newAttempt starts running a with the operation id id, and its span:
// the context it returns carries it, and the operation keeps its trace
// context for the effects it enqueues and its first recovery point.
func (e *Executor) newAttempt(ctx context.Context, a Attempt, id [16]byte) (context.Context, *attempt) {
	ctx, span := e.tracer.StartOperation(ctx, a.Policy.Operation)
	return ctx, &attempt{Attempt: a, span: span, start: time.Now(),
		op: &Operation{ID: formatUUID(id), Name: a.Policy.Operation, Scope: a.Scope, Key: a.Key, id: id,
			store: e.store, request: a.Request, trace: e.tracer.TraceContext(ctx)}}
}

// protected runs an attempt with a key. A retry of an operation decided
// within its retention may be answered from the replay cache, without a
// connection; one under replay: current never is.
func (e *Executor) protected(ctx context.Context, at *attempt, fn Func) (*Result, error) {
	if at.Current == nil {
		if rec := e.replays.get(at.Scope, at.Key, e.clock.Now()); rec != nil {
			return e.answerFrom(ctx, at, rec, fn)
		}
	}
	leave, err := e.awaitFlight(ctx, at)
	if err != nil {
		return nil, err
	}
	defer leave()
	leaveShare, err := e.enterShare(ctx, at)
	if err != nil {
		return nil, err
	}
	defer leaveShare()
	pc, err := e.acquire(ctx, at)
	if err != nil {
		return nil, err
	}
	defer pc.Release()
	at.conn = pc.Conn()
	if e.currentProtocol() == ProtocolAdvisory {
		return e.advisory(ctx, at, fn)
	}
	return e.claimFirst(ctx, at, fn)
}

// claim is what a new operation writes when it claims its key; the
// database computes its deadlines from its own clock.
func (at *attempt) claim() pgstore.Claim {
	p := at.Policy
	return pgstore.Claim{Scope: at.Scope, Key: at.Key, Fingerprint: at.Fingerprint[:], OperationID: at.op.id,
		Operation: p.Operation, Retention: p.Retention, Tombstone: p.Tombstone}
}

// deadlineMargin is how much earlier than a context's deadline the
// server ends a lock wait that deadline bounds (WaitBound), so that its
// answer (SQLSTATE 55P03) usually arrives first: a deadline the client
// reaches first closes the connection, and only pgx's cancel request on
// closing then ends the server's wait.
const deadlineMargin = 10 * time.Millisecond

// WaitBound is the lock_timeout of a wait the caller bounds at d: d, or
// less when ctx's deadline (less deadlineMargin) comes sooner, at least a
// millisecond; byDeadline reports that ctx's deadline set it. With it the
// server, not only the client, ends a wait the deadline cuts short: a
// 55P03 then stands for that deadline, and is answered as the client's
// own deadline would have been.
func WaitBound(ctx context.Context, d time.Duration) (_ time.Duration, byDeadline bool) {
	if deadline, ok := ctx.Deadline(); ok {
		if left := time.Until(deadline) - deadlineMargin; left < d {
			d, byDeadline = left, true
		}
	}
	return max(d, time.Millisecond), byDeadline
}

// lockTimeout is how long the claim may still wait for a concurrent
// holder: what is left of the wait-timeout under ConcurrencyWait, bounded
// by ctx's deadline (WaitBound). It records whether the deadline bounded
// it in at.deadlineBound, for waitTimedOut.
func (at *attempt) lockTimeout(ctx context.Context) time.Duration {
	d := at.Policy.lockTimeout()
	if at.Policy.Concurrency == ConcurrencyWait {
		d = at.Policy.WaitTimeout - time.Since(at.start)
	}
	d, at.deadlineBound = WaitBound(ctx, d)
	return d
}

// waitTimedOut answers an attempt whose wait for the key the server ended
// at its lock_timeout (SQLSTATE 55P03, err): refused as in progress, or,
// when the request's deadline bounded the wait (lockTimeout), failed with
// that deadline's error, as when the client's own deadline ends the wait.
func (e *Executor) waitTimedOut(ctx context.Context, at *attempt, operationID string, err error) error {
	if !at.deadlineBound {
		return e.inProgress(ctx, at, operationID)
	}
	err = fmt.Errorf("idem: %s: waiting for the key: %w (the server ended the wait at the request's deadline: %w)",
		at.Policy.Operation, context.DeadlineExceeded, err)
	e.emit(ctx, at, EventRolledBack, at.op.ID, classify(err))
	return err
}

// inProgress is the refusal of an attempt whose key another attempt holds.
func (e *Executor) inProgress(ctx context.Context, at *attempt, operationID string) error {
	return e.refuse(ctx, at, at.Policy.inProgressEvent(), &RefusalError{Err: ErrInProgress, OperationID: operationID, RetryAfter: at.Policy.RetryAfter()})
}

// awaitFlight waits, without a connection, while this process runs
// another attempt with the key: up to the wait-timeout under
// ConcurrencyWait, not at all under ConcurrencyReject. It returns the
// function that ends the caller's own turn.
func (e *Executor) awaitFlight(ctx context.Context, at *attempt) (leave func(), err error) {
	p := at.Policy
	for {
		leave, running := e.flights.enter(at.Scope, at.Key)
		if leave != nil {
			return leave, nil
		}
		if p.Concurrency == ConcurrencyReject {
			return nil, e.inProgress(ctx, at, "")
		}
		_ = e.hooks.Run(ctx, faults.WaitingForFirst, "")
		remaining := p.WaitTimeout - time.Since(at.start)
		if remaining <= 0 {
			return nil, e.inProgress(ctx, at, "")
		}
		timer := time.NewTimer(remaining)
		select {
		case <-running:
			timer.Stop()
		case <-timer.C:
			return nil, e.inProgress(ctx, at, "")
		case <-ctx.Done():
			timer.Stop()
			return nil, fmt.Errorf("idem: waiting for the first attempt: %w", context.Cause(ctx))
		}
	}
}

// acquireTimeout is how long an attempt may wait for its scope's share,
// and then for a pool connection: Config.AcquireTimeout, or the policy's
// wait-timeout.
func (e *Executor) acquireTimeout(at *attempt) time.Duration {
	if e.acquireWait != 0 {
		return e.acquireWait
	}
	return at.Policy.WaitTimeout
}

// acquire takes a pool connection, waiting at most the acquire timeout: a
// saturated pool is answered ErrUnavailable, never an unbounded wait.
func (e *Executor) acquire(ctx context.Context, at *attempt) (*pgxpool.Conn, error) {
	d := e.acquireTimeout(at)
	actx, cancel := context.WithTimeoutCause(ctx, d, errSaturated)
	defer cancel()
	pc, err := e.pool.Acquire(actx)
	if err == nil {
		return pc, nil
	}
	if ctx.Err() == nil && errors.Is(context.Cause(actx), errSaturated) {
		err = fmt.Errorf("idem: %w (%s, %d of %d in use)", errSaturated, d, e.pool.Stat().AcquiredConns(), e.pool.Stat().MaxConns())
		e.emit(ctx, at, EventUnavailable, "", ClassSaturated)
		return nil, err
	}
	return nil, fmt.Errorf("idem: %w", err)
}
