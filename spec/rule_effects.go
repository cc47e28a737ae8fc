package spec

import (
	"fmt"
	"regexp"
)

// The rules on effects: unique identifier names. IDEM014 (halt-on-atomic)
// is retired: the worker halts an atomic operation's effect in
// requires_recovery while the operation's result stands.

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
