package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/idemgen/idemgen/runtime/fingerprint"
)

// Resumer rebuilds, for the completer, what an adapter needs to drive an
// operation on: the policy and the Func of the operation started with the
// stored request (Attempt.Request) in scope. An error leaves the operation
// to the next redrive, after its backoff.
type Resumer func(ctx context.Context, scope string, request []byte) (*Policy, Func, error)

// RegisterResumer registers r as the resumer of the operation named name
// with the executor h holds, for the completer Maintain runs. An adapter
// registers each operation whose attempts checkpoint when it is built; a
// second registration of the name replaces the first (the same operation
// mounted twice resumes the same way).
func RegisterResumer(h Holder, name string, r Resumer) error {
	e := Of(h)
	if e == nil || name == "" || r == nil {
		return errors.New("idem: RegisterResumer needs an executor, an operation name and a resumer")
	}
	e.resumers.set(name, r)
	return nil
}

// RedriveOptions configure Redrive; a zero field is its default.
type RedriveOptions struct {
	// Resumers rebuild the operations the completer drives, by operation
	// name; operations of other names are left alone. nil means those
	// registered with the executor (RegisterResumer).
	Resumers map[string]Resumer
	// Limit bounds the operations one Redrive drives; 0 is 100.
	Limit int
	// MaxAttempts is how many attempts (every takeover counts, a client's
	// or the completer's) an operation gets before the completer halts it
	// for a person (requires_recovery); 0 is 10.
	MaxAttempts int
	// Backoff is the first wait after a failed redrive; it doubles with
	// each attempt, up to a minute; 0 is one second.
	Backoff time.Duration
}

// RedriveResult counts what one Redrive did.
type RedriveResult struct {
	Completed int // operations driven to a decision (stored, or released)
	Halted    int // operations that ran out of attempts, or halted on an unknown outcome
	Failed    int // operations whose redrive failed; retried after a backoff
	Skipped   int // operations another attempt took over first
}

// Redrive drives abandoned operations to their end without a client: every
// operation in progress after a checkpoint whose lease has run out (its
// attempt crashed, or gave up), of the operations opts names, oldest lease
// first. Each is taken over with a new fencing token, as a retry would,
// and resumed from its last recovery point with the Func its Resumer
// rebuilds from the stored request; one that fails waits a backoff before
// the next redrive, and one that used up MaxAttempts is halted for a
// person. Several completers may run at once, in several processes: the
// takeover lets one drive each operation.
func Redrive(ctx context.Context, h Holder, opts RedriveOptions) (RedriveResult, error) {
	e := Of(h)
	var res RedriveResult
	if opts.Resumers == nil {
		opts.Resumers = e.resumers.registered()
		if len(opts.Resumers) == 0 {
			return res, nil // nothing of this executor checkpoints
		}
	}
	opts, err := opts.normalize()
	if err != nil {
		return res, err
	}
	names := make([]string, 0, len(opts.Resumers))
	for name := range opts.Resumers {
		names = append(names, name)
	}
	abandoned, err := e.store.ListAbandoned(ctx, e.pool, names, opts.Limit)
	if err != nil {
		return res, fmt.Errorf("idem: redrive: %w", err)
	}
	for _, a := range abandoned {
		if ctx.Err() != nil {
			break
		}
		var sum fingerprint.Sum
		copy(sum[:], a.Fingerprint)
		at := Attempt{Scope: a.Scope, Key: a.Key, Fingerprint: sum}
		switch err := e.redrive(ctx, at, a.Operation, opts); {
		case err == nil:
			res.Completed++
		case errors.Is(err, errTakenFirst):
			res.Skipped++
		case errors.Is(err, ErrRequiresRecovery):
			res.Halted++
		default:
			res.Failed++
			e.log.LogAttrs(ctx, slog.LevelWarn, "idempotent operation: redrive failed; retried after a backoff",
				slog.String("operation", a.Operation), slog.String("key_hash", e.keyHash(a.Scope, a.Key)),
				slog.String("error", err.Error()))
		}
	}
	return res, nil
}

// errTakenFirst is redrive's error for an operation another attempt took
// over between the listing and the takeover.
var errTakenFirst = errors.New("taken over by another attempt first")

// redrive takes the operation of at over and drives it to its end.
func (e *Executor) redrive(ctx context.Context, a Attempt, name string, opts RedriveOptions) (err error) {
	// A placeholder policy until the stored request is read: the lease of
	// the takeover is the operation's own, read from the resumer below, so
	// take it over with the longest lease any step may need, a minute, and
	// renew it at the first step.
	a.Policy = &Policy{Operation: name, Retention: time.Hour, Tombstone: time.Hour, WaitTimeout: time.Second, Lease: time.Minute}
	ctx, at := e.newAttempt(ctx, a, [16]byte{})
	defer func() {
		if errors.Is(err, errTakenFirst) || errors.Is(err, ErrRequiresRecovery) {
			at.span.End(nil)
			return
		}
		at.span.End(err)
	}()
	pc, err := e.acquire(ctx, at)
	if err != nil {
		return err
	}
	defer pc.Release()
	at.conn = pc.Conn()
	took, err := e.store.TakeOver(ctx, at.conn, a.Scope, a.Key, a.Fingerprint[:], a.Policy.Lease, time.Millisecond)
	switch {
	case isLockTimeout(err), err == nil && took == nil:
		return errTakenFirst
	case err != nil:
		return err
	}
	at.adopt(took)
	at.giveUpDelay = opts.backoff(took.Token)
	if took.Token > int64(opts.MaxAttempts) {
		if err := e.halt(ctx, at, Decision{Point: took.Point, State: took.State}, true); err != nil {
			return err
		}
		e.log.LogAttrs(ctx, slog.LevelWarn, "idempotent operation halted for recovery: its attempts ran out",
			slog.String("operation", name), slog.String("operation_id", at.op.ID), slog.Int64("attempts", took.Token))
		return ErrRequiresRecovery
	}
	policy, fn, err := opts.Resumers[name](ctx, a.Scope, took.Request)
	if err == nil {
		err = policy.Validate()
	}
	if err != nil {
		e.giveUpLease(ctx, at)
		return fmt.Errorf("resume %s: %w", name, err)
	}
	at.Policy = policy
	at.op.Name = policy.Operation
	tx, err := e.beginStep(ctx, at)
	if err != nil {
		return err
	}
	_, err = e.run(ctx, at, tx, fn)
	return err
}

// normalize fills in the defaults of o.
func (o RedriveOptions) normalize() (RedriveOptions, error) {
	switch {
	case len(o.Resumers) == 0:
		return o, errors.New("idem: redrive without resumers")
	case o.Limit < 0 || o.MaxAttempts < 0 || o.Backoff < 0:
		return o, errors.New("idem: negative redrive option")
	}
	if o.Limit == 0 {
		o.Limit = 100
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 10
	}
	if o.Backoff == 0 {
		o.Backoff = time.Second
	}
	return o, nil
}

// backoff is the wait after the failed attempt number attempt.
func (o RedriveOptions) backoff(attempt int64) time.Duration {
	d := o.Backoff
	for i := int64(1); i < attempt && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}
