package diff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// steps compares the steps of an operation phased on both sides. An
// operation in flight resumes after its last recovery point, named by the
// local step that committed it, and an external step's key derives from
// its name: steps are matched by name, and a step whose name is gone, at
// the index of one that is new, is reported as renamed. An external
// step's result goes to the next step in the same attempt and is never
// stored on its own, so only a local step's output can be held by an
// operation in flight.
func (c *contracts) steps() {
	b, h := c.b.Steps, c.h.Steps
	inBase, inHead := stepNames(b), stepNames(h)
	renamedTo := map[string]string{}
	for i := range min(len(b), len(h)) {
		bn, hn := b[i].Name.Value, h[i].Name.Value
		if !inHead[bn] && !inBase[hn] {
			renamedTo[bn] = hn
			c.stepRenamed(b[i], h[i])
			c.stepPair(b[i], h[i])
		}
	}
	renamedFrom := map[string]bool{}
	for _, hn := range renamedTo {
		renamedFrom[hn] = true
	}
	for _, bs := range b {
		name := bs.Name.Value
		if inHead[name] || renamedTo[name] != "" {
			continue
		}
		inFlight := lostPoint(name) + fmt.Sprintf(" One that had not reached %s never runs it.", name)
		if bs.External.Value {
			inFlight = fmt.Sprintf("An operation in flight that had not got past %[1]s never makes its call, and the step after it runs without its result; one whose call ended unknown is never verified or called again.", name)
		}
		c.add("step-removed", "steps["+name+"]", "step "+name+" removed", inFlight, bs.Pos, stepsPos(c.h))
	}
	for i, hs := range h {
		name := hs.Name.Value
		bs := findStep(b, name)
		switch {
		case bs != nil:
			c.stepPair(*bs, hs)
		case !renamedFrom[name]:
			c.add("step-added", "steps["+name+"]", "step "+name+" added", addedInFlight(h[:i], inBase, name), stepsPos(c.b), hs.Pos)
		}
	}
	bo, ho := commonOrder(b, inHead), commonOrder(h, inBase)
	if !slices.Equal(bo, ho) {
		c.add("steps-reordered", "steps", fmt.Sprintf("steps %s → %s", list(bo), list(ho)),
			"An operation in flight resumes after its last recovery point, taken in the new order: it can run a step it already ran a second time, or never run one it had not reached.",
			stepsPos(c.b), stepsPos(c.h))
	}
}

// addedInFlight says what the step name, added after the head steps
// before, means for operations in flight.
func addedInFlight(before []spec.Step, inBase map[string]bool, name string) string {
	for i := len(before) - 1; i >= 0; i-- {
		if prev := before[i].Name.Value; inBase[prev] {
			return fmt.Sprintf("An operation in flight that had not got past %[1]s runs %[2]s; one that had skips it and never runs %[2]s, and a completed one is replayed without it.", prev, name)
		}
	}
	return fmt.Sprintf("An operation in flight that committed a recovery point resumes after it, skips %[1]s and never runs it; only one that committed none yet, and every new one, runs %[1]s.", name)
}

// stepRenamed reports a step that lost its name to another at its index.
func (c *contracts) stepRenamed(b, h spec.Step) {
	bn, hn := b.Name.Value, h.Name.Value
	var inFlight string
	switch {
	case !b.External.Value:
		inFlight = lostPoint(bn)
	case h.External.Value:
		inFlight = fmt.Sprintf("The step key derives from the name: an operation in flight whose call as %s ended unknown calls again as %s under a new key, which the provider cannot recognise as the same call, so it can happen twice.", bn, hn)
	default:
		inFlight = fmt.Sprintf("An external step commits no recovery point, so operations in flight still find where to resume; what a call of %s that ended unknown becomes is in its change to a local step.", bn)
	}
	c.add("step-renamed", "steps["+hn+"]", fmt.Sprintf("step %s renamed to %s", bn, hn), inFlight, b.Name.Pos, h.Name.Pos)
}

// stepPair compares one step's settings on both sides: external, its
// on-unknown policy and timeout, and its output.
func (c *contracts) stepPair(b, h spec.Step) {
	name, field := h.Name.Value, "steps["+h.Name.Value+"]"
	switch {
	case b.External.Value && !h.External.Value:
		c.add("step-made-local", field+".external", fmt.Sprintf("step %s external true → false", name),
			fmt.Sprintf("%s loses its step key and on-unknown policy: an operation in flight whose call ended unknown runs it again as a local step, and a call that went through happens a second time.", name),
			fieldOr(b.External.Pos, b.Pos), fieldOr(h.External.Pos, h.Pos))
	case !b.External.Value && h.External.Value:
		c.add("step-made-external", field+".external", fmt.Sprintf("step %s external false → true", name),
			fmt.Sprintf("%s gets a step key and an on-unknown policy: a crash during its call now follows the policy instead of running it again; operations in flight resume as before.", name),
			fieldOr(b.External.Pos, b.Pos), fieldOr(h.External.Pos, h.Pos))
	case b.External.Value:
		c.stepOnUnknown(name, field, b, h)
		c.stepTimeout(name, field, b, h)
	}
	bo, ho := b.Output.Value, h.Output.Value
	if bo == ho {
		return
	}
	change, at, to := fmt.Sprintf("step %s output %s → %s", name, outputWords(bo), outputWords(ho)), fieldOr(b.Output.Pos, b.Pos), fieldOr(h.Output.Pos, h.Pos)
	if b.External.Value {
		c.add("step-call-output-changed", field+".output", change,
			fmt.Sprintf("The result of %s's call goes to the next step in the attempt that made it and is never stored on its own: no operation in flight holds it in the old shape.", name),
			at, to)
		return
	}
	c.add("step-output-changed", field+".output", change,
		fmt.Sprintf("An operation in flight that committed %s holds the state the old code encoded; the step after it reads it as the new output, and state that does not decode leaves the operation unable to resume.", name),
		at, to)
}

// lostPoint says what becomes of an operation in flight whose last
// recovery point is the local step name, gone from the contract.
func lostPoint(name string) string {
	return fmt.Sprintf("An operation in flight whose last recovery point is %s cannot find where to resume: its attempts fail until the completer halts it for a person.", name)
}

// stepOnUnknown compares an external step's policy: halt is the
// strictest, retry the loosest.
func (c *contracts) stepOnUnknown(name, field string, b, h spec.Step) {
	bu, hu := b.OnUnknown.Value, h.OnUnknown.Value
	if !b.OnUnknown.Set || !h.OnUnknown.Set || bu == hu {
		return
	}
	change := fmt.Sprintf("step %s on-unknown %s → %s", name, bu, hu)
	at, to := fieldOr(b.OnUnknown.Pos, b.Pos), fieldOr(h.OnUnknown.Pos, h.Pos)
	field += ".on-unknown"
	switch {
	case strictness(hu) > strictness(bu):
		c.add("step-on-unknown-tightened", field, change,
			fmt.Sprintf("An operation in flight whose call to %s ends unknown after the change is %s instead.", name, onUnknownWords(hu)),
			at, to)
	case hu == spec.OnUnknownRetry:
		c.add("step-on-unknown-loosened", field, change,
			fmt.Sprintf("An operation in flight whose call to %s ended unknown is called again with the same step key without asking anyone: unless the provider treats the repeated key as the same call, it happens twice.", name),
			at, to)
	default:
		c.add("step-on-unknown-loosened", field, change,
			fmt.Sprintf("An operation in flight whose call to %s ends unknown after the change is called again when the provider says it did not happen, instead of waiting for a person; one already in requires_recovery stays there. A wrong answer from the provider makes the call happen twice.", name),
			at, to)
	}
}

// strictness ranks on-unknown policies: retry, verify, halt.
func strictness(p spec.OnUnknown) int {
	return slices.Index([]spec.OnUnknown{spec.OnUnknownRetry, spec.OnUnknownVerify, spec.OnUnknownHalt}, p)
}

// stepTimeout compares an external step's timeout, against the head's
// lease when it grows.
func (c *contracts) stepTimeout(name, field string, b, h spec.Step) {
	bt, ht, lease := b.Timeout.Value, h.Timeout.Value, c.h.Lease.Value
	if !b.Timeout.Set || !h.Timeout.Set || bt == ht {
		return
	}
	bs, hs, ls := spec.FormatDuration(bt), spec.FormatDuration(ht), spec.FormatDuration(lease)
	change := fmt.Sprintf("step %s timeout %s → %s", name, bs, hs)
	at, to := b.Timeout.Pos, h.Timeout.Pos
	field += ".timeout"
	switch {
	case ht >= lease:
		c.add("step-timeout-beyond-lease", field, change,
			fmt.Sprintf("A call to %s may now run for %s, no shorter than the lease (%s): a retry or the completer can take the operation over while the call still runs and call again with the same step key; the fencing token keeps the first attempt from committing, but the provider sees both calls.", name, hs, ls),
			at, to)
	case ht < bt:
		c.add("step-timeout-shortened", field, change,
			fmt.Sprintf("A call to %s that takes longer than %s now ends with its outcome unknown where it would have finished, and the operation follows on-unknown %s: nothing runs twice, but more retries wait or get 409.", name, hs, h.OnUnknown.Value),
			at, to)
	default:
		c.add("step-timeout-lengthened", field, change,
			fmt.Sprintf("A call to %s may take up to %s, still inside the lease (%s): fewer calls end with their outcome unknown.", name, hs, ls),
			at, to)
	}
}

// leaseBelowTimeout names the external steps of the head whose timeout the
// head's lease no longer exceeds, for lease-shortened: "" when there is
// none.
func leaseBelowTimeout(h *spec.Contract) string {
	var names []string
	for _, s := range h.Steps {
		if s.External.Value && s.Timeout.Set && s.Timeout.Value >= h.Lease.Value {
			names = append(names, fmt.Sprintf("%s (timeout %s)", s.Name.Value, spec.FormatDuration(s.Timeout.Value)))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" The call of %s can now outlast the lease: a retry can take over while it still runs.", joinAnd(names))
}

// outputWords names a step's output in a change: its schema reference, or
// none.
func outputWords(ref string) string {
	if ref == "" {
		return "none"
	}
	return ref
}

// stepNames is the set of the steps' names.
func stepNames(steps []spec.Step) map[string]bool {
	m := make(map[string]bool, len(steps))
	for _, s := range steps {
		m[s.Name.Value] = true
	}
	return m
}

// findStep returns the step named name, or nil.
func findStep(steps []spec.Step, name string) *spec.Step {
	for i := range steps {
		if steps[i].Name.Value == name {
			return &steps[i]
		}
	}
	return nil
}

// commonOrder lists the names of steps that other also has, in order.
func commonOrder(steps []spec.Step, other map[string]bool) []string {
	var out []string
	for _, s := range steps {
		if other[s.Name.Value] {
			out = append(out, s.Name.Value)
		}
	}
	return out
}

// stepsPos is where a contract's steps are: the first one, or the block
// when it has none.
func stepsPos(c *spec.Contract) spec.Position {
	if len(c.Steps) > 0 {
		return c.Steps[0].Pos
	}
	return c.Pos
}

// joinAnd lists items in prose: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
