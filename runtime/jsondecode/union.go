package jsondecode

import (
	"encoding/json"
	"strconv"
	"strings"
)

// A Branch decodes the next value as one branch of a union (oneOf or
// anyOf) and checks it, reporting to the decoder it is given; generated
// decoders pass one per branch, in the schema's order.
type Branch func(*Decoder)

// maxBranchReasons bounds how many branches a union's violation quotes.
const maxBranchReasons = 3

// Union reads the next value, checks it against the branches of a oneOf
// (exclusive: exactly one must match) or an anyOf (at least one), and
// returns its text as the client sent it. A branch matches when it reports
// no violation. A value that breaks the decoder's own strictness
// (duplicate members, unsafe strings, inexact integers) is reported as
// such and not checked further. Otherwise the violations of the branches
// are not reported one by one: the union's value gets one violation that
// says how many branches it matched and, when none, why the first few did
// not.
func (d *Decoder) Union(exclusive bool, branches ...Branch) json.RawMessage {
	d.space()
	start, nv, nd := d.pos, len(d.violations), d.dropped
	raw := d.Raw()
	if d.syntax != nil || len(d.violations) != nv || d.dropped != nd {
		return raw
	}
	end := d.pos
	matched := 0
	var reasons []string
	for i, b := range branches {
		d.pos = start
		b(d)
		if d.syntax != nil {
			// The value parsed once; a branch cannot make it malformed.
			return raw
		}
		switch {
		case len(d.violations) == nv && d.dropped == nd:
			matched++
		case len(reasons) < maxBranchReasons && len(d.violations) > nv:
			reasons = append(reasons, "branch "+strconv.Itoa(i+1)+": "+d.violations[nv].where()+d.violations[nv].Reason)
		}
		d.violations, d.dropped, d.bad = d.violations[:nv], nd, false
	}
	d.pos = end
	keyword := "anyOf"
	if exclusive {
		keyword = "oneOf"
	}
	switch {
	case matched == 0:
		reason := "must match one of the " + strconv.Itoa(len(branches)) + " " + keyword + " branches, and matches none"
		if len(reasons) > 0 {
			reason += " (" + strings.Join(reasons, "; ") + ")"
		}
		d.Violate(reason)
	case exclusive && matched > 1:
		d.Violate("must match exactly one of the " + strconv.Itoa(len(branches)) + " oneOf branches, and matches " + strconv.Itoa(matched))
	}
	return raw
}

// Discriminated reads the next value, an object whose member property
// names its branch: values[i] selects branches[i]. The chosen branch's
// violations are reported as they are; a missing or unknown
// discriminator is a violation of the member. It returns the value's text
// as the client sent it.
func (d *Decoder) Discriminated(property string, values []string, branches ...Branch) json.RawMessage {
	d.space()
	start, nv, nd := d.pos, len(d.violations), d.dropped
	raw := d.Raw()
	if d.syntax != nil || len(d.violations) != nv || d.dropped != nd {
		return raw
	}
	end := d.pos
	d.pos = start
	chosen := -1
	if !d.BeginObject() {
		d.pos = end
		return raw
	}
	found := false
	for d.Member() {
		if string(d.Key()) != property {
			d.Skip()
			continue
		}
		found = true
		v := d.String()
		if d.bad {
			continue
		}
		for i, want := range values {
			if v == want {
				chosen = i
			}
		}
		if chosen < 0 {
			quoted := make([]string, len(values))
			for i, want := range values {
				quoted[i] = strconv.Quote(want)
			}
			d.Violate("must be one of " + strings.Join(quoted, ", ") + ": it names the branch of the object")
		}
	}
	if !found {
		d.Missing(property)
	}
	if chosen >= 0 {
		d.pos = start
		branches[chosen](d)
	}
	d.pos = end
	return raw
}

// where is the violation's location followed by ": ", or nothing for the
// current value.
func (v Violation) where() string {
	if v.Pointer == "" {
		return ""
	}
	return v.Pointer + ": "
}
