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

var ruleNaturalKeyNotSignificant = Rule{
	ID:       "IDEM025",
	Name:     "natural-key-not-significant",
	Severity: SeverityError,
	Summary:  "a natural-key field that the fingerprint leaves out",
	check: func(r *ruleRun) {
		if r.c == nil {
			return
		}
		for i, f := range r.c.NaturalKey {
			p, err := parsePointer(f.Value)
			if err != nil {
				continue // IDEM002 reports it
			}
			why, hint := naturalKeyInsignificance(r.c.Fingerprint, p)
			if why == "" {
				continue
			}
			r.report(f.Pos, fmt.Sprintf("x-idempotency.natural-key[%d]", i),
				fmt.Sprintf("natural-key %s is not significant for the fingerprint (%s): a retry with the same idempotency key and another %s would replay the first operation's answer instead of getting 422", f.Value, why, f.Value),
				hint)
		}
	},
}

// naturalKeyInsignificance says why the fingerprint leaves the natural-key
// field at p out, with the fix, or returns "" when the field is
// significant: covered by an include (or by the whole body when there is
// none) and by no exclude.
func naturalKeyInsignificance(fp Fingerprint, p pointer) (why, hint string) {
	for _, f := range fp.Exclude {
		if q, err := parsePointer(f.Value); err == nil && q.covers(p) {
			return "fingerprint.exclude " + f.Value + " removes it", "drop " + f.Value + " from fingerprint.exclude, or exclude only what is not part of the natural key"
		}
	}
	if len(fp.Include) == 0 {
		return "", ""
	}
	for _, f := range fp.Include {
		if q, err := parsePointer(f.Value); err == nil && q.covers(p) {
			return "", ""
		}
	}
	return "fingerprint.include does not cover it", "add " + p.String() + " to fingerprint.include"
}
