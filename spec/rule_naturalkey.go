package spec

import "fmt"

// The rules on natural-key pointers: each must name a field of the request
// schema that the schema requires.

var ruleNaturalKeyPointerMissing = Rule{
	ID:       "IDEM002",
	Name:     "natural-key-pointer-missing",
	Severity: SeverityError,
	Summary:  "a natural-key pointer that the request schema does not have",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, f := range r.c.NaturalKey {
			r.checkPointer(f, fmt.Sprintf("x-idempotency.natural-key[%d]", i), "natural-key")
		}
	},
}

var ruleNaturalKeyNotRequired = Rule{
	ID:       "IDEM004",
	Name:     "natural-key-not-required",
	Severity: SeverityError,
	Summary:  "a natural-key field that the request schema does not require",
	check: func(r *ruleRun) {
		body := requestSchema(r.op)
		if r.c == nil || body == nil {
			return
		}
		for i, f := range r.c.NaturalKey {
			p, err := parsePointer(f.Value)
			if err != nil {
				continue
			}
			res := resolve(body, p)
			if res.status != lookupFound || res.optional == nil {
				continue
			}
			last := res.optional[len(res.optional)-1]
			why := fmt.Sprintf("the request schema does not require %s", res.optional)
			hint := fmt.Sprintf("add %q to the required list of its object, or drop it from natural-key", last)
			if isElementToken(last) {
				why = fmt.Sprintf("it passes through the array %s, which may be empty", res.optional[:len(res.optional)-1])
				hint = "a natural key is one value per request: point at a required field outside arrays"
			}
			r.report(f.Pos, fmt.Sprintf("x-idempotency.natural-key[%d]", i),
				fmt.Sprintf("natural-key %s may be absent: %s, and a unique constraint does not hold on a missing value", f.Value, why),
				hint)
		}
	},
}
