package spec

import (
	"fmt"
	"strings"
	"time"
)

// The rules on the steps of a phased operation: a phased operation has
// steps and an atomic one none; each step has its own identifier name; an
// external step says what an unknown outcome leads to and how long its
// call may take, a local one says neither; the last step is local; every
// call ends inside the lease; a halt is documented as the 409 retries get;
// a step's output names a component schema.

var rulePhasedWithoutSteps = Rule{
	ID:       "IDEM030",
	Name:     "phased-without-steps",
	Severity: SeverityError,
	Summary:  "mode phased without steps",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Mode.Value != ModePhased || len(r.c.Steps) > 0 {
			return
		}
		r.report(r.c.Mode.Pos, "x-idempotency.mode",
			fmt.Sprintf("%s is phased but declares no steps: a phased operation runs its steps in order and resumes after the last one it committed, so there is nothing to run and no recovery point to resume from", r.opName()),
			"list the steps in order under steps, such as steps: [{name: record_payment}, {name: charge_card, external: true, on-unknown: verify, timeout: 10s}, {name: record_outcome}], or use mode: atomic")
	},
}

var ruleStepsOnAtomic = Rule{
	ID:       "IDEM031",
	Name:     "steps-on-atomic",
	Severity: SeverityError,
	Summary:  "steps on an operation whose mode is atomic",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Mode.Value != ModeAtomic || len(r.c.Steps) == 0 {
			return
		}
		mode := "mode: atomic"
		if !r.c.Mode.Set {
			mode = "atomic is the default mode"
		}
		r.report(r.c.Steps[0].Pos, "x-idempotency.steps",
			fmt.Sprintf("%s declares steps but is atomic (%s): an atomic operation runs in one transaction without recovery points, so no code would run its steps as written", r.opName(), mode),
			"set mode: phased and a lease, or remove steps")
	},
}

var ruleDuplicateStep = Rule{
	ID:       "IDEM032",
	Name:     "duplicate-step-name",
	Severity: SeverityError,
	Summary:  "two steps of one operation with the same name",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		r.reportDuplicates(stepNames(r.c.Steps), "x-idempotency.steps[%d].name",
			func(name string, firstLine int) string {
				return fmt.Sprintf("step %q is declared twice (first at line %d): an operation in flight resumes after the step it committed last, found by its name, and an external step's key derives from its name, so each step needs its own", name, firstLine)
			},
			"rename one of them, such as charge_card and capture_card")
	},
}

var ruleStepNameNotIdentifier = Rule{
	ID:       "IDEM033",
	Name:     "step-name-not-identifier",
	Severity: SeverityError,
	Summary:  "a step name that is not a lower-case identifier (^[a-z][a-z0-9_]*$)",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		r.reportNonIdentifiers(stepNames(r.c.Steps), "x-idempotency.steps[%d].name",
			func(name string) string {
				return fmt.Sprintf("step name %q is not a lower-case identifier: it names the recovery point, the step key the provider receives and generated code", name)
			},
			"use lower-case letters, digits and _, starting with a letter, such as charge_card")
	},
}

// stepNames lists the names of steps, in order.
func stepNames(steps []Step) []Field[string] {
	out := make([]Field[string], len(steps))
	for i, s := range steps {
		out[i] = s.Name
	}
	return out
}

var ruleExternalStepIncomplete = Rule{
	ID:       "IDEM034",
	Name:     "external-step-incomplete",
	Severity: SeverityError,
	Summary:  "an external step without on-unknown or without timeout",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, s := range r.c.Steps {
			if !s.External.Value {
				continue
			}
			path := fmt.Sprintf("x-idempotency.steps[%d]", i)
			if !s.OnUnknown.Set {
				r.report(s.External.Pos, path+".on-unknown",
					fmt.Sprintf("external step %q has no on-unknown: when a crash or time-out leaves its call's outcome unknown, nothing says whether to call again, ask the provider or stop", s.Name.Value),
					"add on-unknown: verify when the provider can say whether a call with the step key happened, retry when it treats a repeated step key as the same call, or halt to leave the operation to a person")
			}
			if !s.Timeout.Set {
				r.report(s.External.Pos, path+".timeout",
					fmt.Sprintf("external step %q has no timeout: a call that hangs holds the operation past its lease, and another attempt takes over while it still runs", s.Name.Value),
					"add a timeout shorter than the lease, such as timeout: 10s")
			}
		}
	},
}

var ruleCallSettingsOnLocalStep = Rule{
	ID:       "IDEM035",
	Name:     "call-settings-on-local-step",
	Severity: SeverityError,
	Summary:  "on-unknown or timeout on a local step (external not true)",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, s := range r.c.Steps {
			if s.External.Value {
				continue
			}
			if s.OnUnknown.Set {
				r.report(s.OnUnknown.Pos, fmt.Sprintf("x-idempotency.steps[%d].on-unknown", i),
					fmt.Sprintf("step %q is local, so on-unknown %s would do nothing: a local step runs in its own transaction, whose outcome is never unknown", s.Name.Value, s.OnUnknown.Value),
					"set external: true if the step calls outside the database, or remove on-unknown")
			}
			if s.Timeout.Set {
				r.report(s.Timeout.Pos, fmt.Sprintf("x-idempotency.steps[%d].timeout", i),
					fmt.Sprintf("step %q is local, so timeout %s would do nothing: only an external step's call is timed", s.Name.Value, FormatDuration(s.Timeout.Value)),
					"set external: true if the step calls outside the database, or remove timeout")
			}
		}
	},
}

var ruleLastStepExternal = Rule{
	ID:       "IDEM036",
	Name:     "last-step-external",
	Severity: SeverityError,
	Summary:  "an external last step",
	check: func(r *ruleRun) {
		if r.c == nil || len(r.c.Steps) == 0 {
			return
		}
		i := len(r.c.Steps) - 1
		last := r.c.Steps[i]
		if !last.External.Value {
			return
		}
		r.report(last.External.Pos, fmt.Sprintf("x-idempotency.steps[%d].external", i),
			fmt.Sprintf("the last step %q is external: the last step records the operation's answer in the transaction that completes it, and a call outside the database has no transaction", last.Name.Value),
			"add a local step after it that records the outcome, such as {name: record_outcome}")
	},
}

var ruleStepTimeoutNotWithinLease = Rule{
	ID:       "IDEM037",
	Name:     "step-timeout-not-within-lease",
	Severity: SeverityError,
	Summary:  "an external step whose timeout is not shorter than the lease",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Mode.Value != ModePhased {
			return
		}
		lease := r.c.Lease
		for i, s := range r.c.Steps {
			if !s.External.Value || !s.Timeout.Set || s.Timeout.Value < lease.Value {
				continue
			}
			r.report(s.Timeout.Pos, fmt.Sprintf("x-idempotency.steps[%d].timeout", i),
				fmt.Sprintf("timeout %s of step %q is not shorter than the lease %s (%s): a call may still run when the lease runs out, and another attempt then takes over and resumes while it runs",
					FormatDuration(s.Timeout.Value), s.Name.Value, FormatDuration(lease.Value), leaseOrigin(lease)),
				"make the lease longer than every external step's timeout, with room to commit the recovery point after the call, or shorten the timeout")
		}
	},
}

// leaseOrigin says where the lease comes from, for messages: its line, or
// that it is the built-in default.
func leaseOrigin(lease Field[time.Duration]) string {
	if !lease.Set {
		return "the built-in default"
	}
	return fmt.Sprintf("line %d", lease.Pos.Line)
}

var ruleHaltStepUndocumented = Rule{
	ID:       "IDEM038",
	Name:     "halt-step-409-undocumented",
	Severity: SeverityWarning,
	Summary:  "on-unknown: halt on a step of an operation that documents no 409 response",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Mode.Value != ModePhased || documents409(r.op) {
			return
		}
		for i, s := range r.c.Steps {
			if !s.External.Value || s.OnUnknown.Value != OnUnknownHalt {
				continue
			}
			r.report(s.OnUnknown.Pos, fmt.Sprintf("x-idempotency.steps[%d].on-unknown", i),
				fmt.Sprintf("step %q halts when its call's outcome is unknown, but %s documents no 409 response: its retries then get 409 with the problem type operation-requires-recovery and the operation id, which clients built from the spec do not expect", s.Name.Value, r.opName()),
				"document a 409 response with an application/problem+json body, as docs/problems.md describes, or use on-unknown: verify when the provider can say whether the call happened")
		}
	},
}

// documents409 reports whether op documents a 409 response, itself or
// within a 4XX range.
func documents409(op *Operation) bool {
	if op.Op == nil || op.Op.Responses == nil {
		return false
	}
	for code := range op.Op.Responses.Map() {
		if code == "409" || strings.EqualFold(code, "4XX") {
			return true
		}
	}
	return false
}

var ruleStepOutputNotFound = Rule{
	ID:       "IDEM039",
	Name:     "step-output-not-found",
	Severity: SeverityError,
	Summary:  "a step output that does not refer to a schema under components/schemas",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, s := range r.c.Steps {
			if !s.Output.Set {
				continue
			}
			isRef, declared := componentRef(r.doc, s.Output.Value)
			if declared {
				continue
			}
			msg := fmt.Sprintf("output %q of step %q names no schema under components/schemas", s.Output.Value, s.Name.Value)
			if !isRef {
				msg = fmt.Sprintf("output %q of step %q is not a component schema reference (%sName)", s.Output.Value, s.Name.Value, componentPrefix)
			}
			r.report(s.Output.Pos, fmt.Sprintf("x-idempotency.steps[%d].output", i), msg,
				"declare the state's schema under components/schemas and refer to it as {$ref: '"+componentPrefix+"Name'}, or leave output out when the step hands on nothing")
		}
	},
}
