package spec

import (
	"fmt"
	"regexp"
)

// The rules on effects: unique identifier names, and no halt where there
// is no recovery path.

var ruleDuplicateEffect = Rule{
	ID:       "IDEM011",
	Name:     "duplicate-effect-name",
	Severity: SeverityError,
	Summary:  "two effects of one operation with the same name",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		first := map[string]Position{}
		for i, e := range r.c.Effects {
			name := e.Name.Value
			if at, ok := first[name]; ok {
				r.report(e.Name.Pos, fmt.Sprintf("x-idempotency.effects[%d].name", i),
					fmt.Sprintf("effect %q is declared twice (first at line %d): each effect needs its own name, since its name derives its effect key", name, at.Line),
					"rename one of them, or merge them into one effect")
				continue
			}
			first[name] = e.Name.Pos
		}
	},
}

// effectNamePattern is what an effect name must match: it becomes a Go
// method name and part of an effect key.
var effectNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

var ruleEffectNameNotIdentifier = Rule{
	ID:       "IDEM012",
	Name:     "effect-name-not-identifier",
	Severity: SeverityError,
	Summary:  "an effect name that is not a lower-case identifier (^[a-z][a-z0-9_]*$)",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, e := range r.c.Effects {
			if effectNamePattern.MatchString(e.Name.Value) {
				continue
			}
			r.report(e.Name.Pos, fmt.Sprintf("x-idempotency.effects[%d].name", i),
				fmt.Sprintf("effect name %q is not a lower-case identifier: it names generated code and effect keys", e.Name.Value),
				"use lower-case letters, digits and _, starting with a letter, such as send_receipt")
		}
	},
}

var ruleHaltOnAtomic = Rule{
	ID:       "IDEM014",
	Name:     "halt-on-atomic",
	Severity: SeverityError,
	Summary:  "an effect with on-unknown: halt on an operation in atomic mode",
	check: func(r *ruleRun) {
		if r.c == nil || r.c.Mode.Value != ModeAtomic {
			return
		}
		for i, e := range r.c.Effects {
			if e.OnUnknown.Value != OnUnknownHalt {
				continue
			}
			r.report(e.OnUnknown.Pos, fmt.Sprintf("x-idempotency.effects[%d].on-unknown", i),
				fmt.Sprintf("effect %q halts on an unknown outcome, but %s is atomic: its transaction has committed before the effect runs, so there is no recovery point to halt at", e.Name.Value, r.opName()),
				"choose on-unknown: verify, which asks the provider before any repeat; halt needs phased mode, which is not generated yet")
		}
	},
}
