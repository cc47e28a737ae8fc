package core

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Policy is what the executor needs of an operation's contract, whatever
// the transport: its name, how long its record lives, what a concurrent
// duplicate does, whether failures are stored and how long an attempt may
// hold the operation between recovery points. Adapters build it from
// their contract, with every default applied, and check it with Validate
// once, before the first attempt.
type Policy struct {
	Operation   string        // the contract's operation name, for logs, metrics and natural keys; required
	Retention   time.Duration // the record and its stored outcome are kept this long; > 0
	Tombstone   time.Duration // then a compact record this long: a late retry is never run again; > 0
	Concurrency Concurrency   // what a duplicate does while an attempt holds the key
	WaitTimeout time.Duration // how long a duplicate waits under ConcurrencyWait; > 0
	// StoresFailures opens a savepoint around the Func, so that a Fail
	// decision can roll the business changes back and still store its
	// outcome. Without it a Fail decision is an error.
	StoresFailures bool
	// Lease is how long an attempt holds its operation after a checkpoint
	// before a retry may take it over, on the database's clock; 0 means
	// the operation never checkpoints (a Checkpoint decision is an error).
	Lease time.Duration
}

// Concurrency is the policy for a duplicate that arrives while an attempt
// holds the key.
type Concurrency int

const (
	// ConcurrencyWait blocks the duplicate up to WaitTimeout for the first
	// attempt's decision and answers from it; past the timeout it is
	// refused with ErrInProgress.
	ConcurrencyWait Concurrency = iota
	// ConcurrencyReject refuses the duplicate with ErrInProgress at once.
	ConcurrencyReject
)

// Validate reports the first field of p that the executor cannot run.
func (p Policy) Validate() error {
	switch {
	case p.Operation == "":
		return errors.New("idem: policy without an operation name")
	case p.Retention <= 0 || p.Tombstone <= 0 || p.WaitTimeout <= 0:
		return fmt.Errorf("idem: policy %s: retention, tombstone and wait-timeout must be positive", p.Operation)
	case p.Lease < 0:
		return fmt.Errorf("idem: policy %s: negative lease", p.Operation)
	case p.Retention > math.MaxInt64-p.Tombstone:
		return fmt.Errorf("idem: policy %s: retention %s plus tombstone %s overflows", p.Operation, p.Retention, p.Tombstone)
	case p.Concurrency != ConcurrencyWait && p.Concurrency != ConcurrencyReject:
		return fmt.Errorf("idem: policy %s: unknown concurrency %d", p.Operation, p.Concurrency)
	}
	return nil
}

// lockTimeout is how long a claim waits for a concurrent holder.
func (p *Policy) lockTimeout() time.Duration {
	if p.Concurrency == ConcurrencyReject {
		return time.Millisecond
	}
	return p.WaitTimeout
}

// RetryAfter is the advice of a refusal for an operation in progress:
// the wait-timeout under wait (the first attempt has already run that
// long), one second under reject; whole seconds, at least one.
func (p *Policy) RetryAfter() time.Duration {
	if p.Concurrency == ConcurrencyReject {
		return time.Second
	}
	return max(p.WaitTimeout.Round(time.Second), time.Second)
}

// inProgressEvent is the event of a refusal because an attempt holds the
// key.
func (p *Policy) inProgressEvent() EventKind {
	if p.Concurrency == ConcurrencyReject {
		return EventRejectInProgress
	}
	return EventWaitTimeout
}
