package explain

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// phasedItems explain a phased contract: its mode, its lease, its steps
// (one line each: what a retry, a crash or a time-out does there, and
// where the outcome can be unknown) and the completer.
func phasedItems(c *spec.Contract) []Item {
	steps := Item{Label: "Steps", Text: "None declared, so there is nothing to run."}
	if len(c.Steps) > 0 {
		steps.Text = "In order:"
		for i, s := range c.Steps {
			steps.List = append(steps.List, stepSentence(c, s, i == len(c.Steps)-1))
		}
	}
	return []Item{
		{Label: "Mode", Text: phasedSentence},
		{Label: "Lease", Text: leaseSentence(c)},
		steps,
		{Label: "Completer", Text: completerSentence + " A retry that arrives afterwards gets " + retryGets(c, "the answer the last step recorded") + "."},
	}
}

// retryGets says what a retry of the completed operation gets: recorded,
// the answer the last step recorded, or under replay: current the created
// resource as it is now.
func retryGets(c *spec.Contract, recorded string) string {
	if c.Replay.Value == spec.ReplayCurrent {
		return "the created resource as it is now (`replay: current`), while " + recorded + " stays with the record for support"
	}
	return recorded
}

const phasedSentence = "Phased: the claim of the key commits first, so a duplicate sees the operation in progress. Then the steps below run in order: each local step commits a recovery point, and an external step makes its call after the commit before it. A crash loses at most the step under way: the operation resumes after its last recovery point, found by the step's name, and never runs a committed step again."

const completerSentence = "An operation whose client gives up is not left half done: once its lease runs out, the service's completer takes it over as a retry would and drives it to its end from the stored request, by the same steps and policies."

func leaseSentence(c *spec.Contract) string {
	lease := human(c.Lease.Value)
	if !c.Lease.Set {
		lease += " (the built-in default)"
	}
	duplicate := fmt.Sprintf("waits up to %s and then gets 409 with `Retry-After`", human(c.WaitTimeout.Value))
	if c.Concurrency.Value == spec.ConcurrencyReject {
		duplicate = "gets 409 with `Retry-After` at once"
	}
	return fmt.Sprintf("An attempt holds the operation for %s under a fencing token, renewed at each recovery point; a duplicate that arrives meanwhile %s. When the lease runs out without a new recovery point (the attempt crashed, or hangs), a retry takes the operation over with a new token and resumes after the last recovery point, and the attempt that lost it can commit nothing more.",
		lease, duplicate)
}

// stepSentence explains one step of c; last reports whether it is the
// last.
func stepSentence(c *spec.Contract, s spec.Step, last bool) string {
	name := "`" + s.Name.Value + "`"
	if s.External.Value {
		timeout, result := "", "its result"
		if s.Timeout.Set {
			timeout = ", and gives the call at most " + human(s.Timeout.Value)
		}
		if s.Output.Set {
			result = fmt.Sprintf("its result (output `%s`)", schemaName(s.Output.Value))
		}
		return fmt.Sprintf("%s: once the recovery point before it has committed, calls outside the database with a step key derived from the operation and the step's name, the same on every attempt, which the provider receives%s; %s goes to the next step, whose commit records it. A crash or time-out during the call, or before the next step commits, leaves its outcome unknown: %s",
			name, timeout, result, unknownSentence(s.OnUnknown))
	}
	output := ""
	if s.Output.Set {
		output = fmt.Sprintf(" with its output `%s`", schemaName(s.Output.Value))
	}
	if last {
		return fmt.Sprintf("%s: runs in its own transaction, records the operation's answer (its response)%s and completes the operation in one commit, while the attempt's token holds. A crash or time-out before the commit leaves nothing of it, and a retry or the completer runs it again; its outcome is never unknown. Every retry after the commit gets %s.",
			name, strings.Replace(output, " with", " and", 1), retryGets(c, "the recorded answer"))
	}
	return fmt.Sprintf("%s: runs in its own transaction and commits its recovery point%s, while the attempt's token holds. A crash or time-out before the commit leaves nothing of it, and a retry or the completer runs it again; its outcome is never unknown.",
		name, output)
}

// unknownSentence says what an external step's policy does with an
// unknown outcome.
func unknownSentence(p spec.Field[spec.OnUnknown]) string {
	switch {
	case !p.Set:
		return "its on-unknown is not set, so the contract does not say whether to call again, ask the provider or stop."
	case p.Value == spec.OnUnknownRetry:
		return "a retry or the completer calls again with the same step key (retry), so the provider must treat a repeated key as the same call."
	case p.Value == spec.OnUnknownVerify:
		return "a retry or the completer first asks the provider whether the call with the step key happened (verify): if it did, its result is taken and the call is not made again; if it did not, the call is made again with the same step key; if the provider cannot tell, the outcome stays unknown until a later retry asks again."
	}
	return "the operation stops in `requires_recovery` (halt): its retries get 409 `operation-requires-recovery` with the operation id, and the completer leaves it, until a person settles it with an audited resolution (completed with an answer, or failed with a problem), or resumes it after checking with the provider, which makes the call again."
}

// schemaName names a component schema by its reference: the name after
// #/components/schemas/, or the reference itself when it is not one.
func schemaName(ref string) string {
	if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok && name != "" && !strings.Contains(name, "/") {
		return name
	}
	return ref
}
