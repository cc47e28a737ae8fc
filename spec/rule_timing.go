package spec

import (
	"fmt"
	"time"

	"github.com/idemgen/idemgen/runtime/defaults"
)

// The rules on durations and the concurrency policy: retention against the
// lease and against a day, phased mode without a lease, and a wait-timeout
// that reject ignores.

var ruleRetentionShorterThanLease = Rule{
	ID:       "IDEM005",
	Name:     "retention-shorter-than-lease",
	Severity: SeverityError,
	Summary:  "a retention shorter than the lease of a phased operation",
	check: func(r *ruleRun) {
		if r.c == nil || (r.c.Mode.Value != ModePhased && !r.c.Lease.Set) {
			return
		}
		if r.c.Retention.Value >= r.c.Lease.Value {
			return
		}
		r.report(r.c.Retention.Pos, "x-idempotency.retention",
			fmt.Sprintf("retention %s is shorter than the lease %s: the record can expire while an attempt still holds the operation, and a retry then runs it a second time",
				FormatDuration(r.c.Retention.Value), FormatDuration(r.c.Lease.Value)),
			"make retention at least as long as the lease; a day or more is usual")
	},
}

var ruleRetentionUnderADay = Rule{
	ID:       "IDEM006",
	Name:     "retention-under-24h",
	Severity: SeverityWarning,
	Summary:  "a retention shorter than 24h",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Retention.Value >= 24*time.Hour {
			return
		}
		r.report(r.c.Retention.Pos, "x-idempotency.retention",
			fmt.Sprintf("retention %s is shorter than 24h: clients and queues commonly retry for a day, and a retry after the stored response is gone gets 409 operation-expired instead of the result",
				FormatDuration(r.c.Retention.Value)),
			"use 24h or more, as Stripe does")
	},
}

var rulePhasedWithoutLease = Rule{
	ID:       "IDEM013",
	Name:     "phased-without-lease",
	Severity: SeverityWarning,
	Summary:  "mode phased without an explicit lease",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Mode.Value != ModePhased || r.c.Lease.Set {
			return
		}
		r.report(r.c.Mode.Pos, "x-idempotency.mode",
			fmt.Sprintf("mode phased without a lease uses the default of %s: a step that runs longer loses the operation to a retry, which resumes it while the first attempt still runs",
				FormatDuration(defaults.Lease)),
			"set lease to the longest time one attempt may take, such as lease: 2m")
	},
}

var ruleWaitTimeoutWithReject = Rule{
	ID:       "IDEM017",
	Name:     "wait-timeout-with-reject",
	Severity: SeverityWarning,
	Summary:  "a wait-timeout on an operation whose concurrency is reject, where it has no effect",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Concurrency.Value != ConcurrencyReject || !r.c.WaitTimeout.Set {
			return
		}
		r.report(r.c.WaitTimeout.Pos, "x-idempotency.wait-timeout",
			fmt.Sprintf("wait-timeout %s has no effect: with concurrency reject a duplicate gets 409 at once", FormatDuration(r.c.WaitTimeout.Value)),
			"remove wait-timeout, or set concurrency: wait")
	},
}
