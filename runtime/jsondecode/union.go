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
	start, raw, ok := d.unionValue()
	if !ok {
		return raw
	}
	end := d.pos
	// Try the branches counting failures only: a union inside a branch of
	// another keeps the outer trial's verdict.
	outerTrial, outerFailed, outerRereading := d.trial, d.failed, d.rereading
	d.trial, d.rereading = true, true
	matched := 0
	for _, b := range branches {
		d.pos, d.failed = start, false
		b(d)
		d.bad = false
		if !d.failed {
			matched++
			if !exclusive || matched > 1 {
				break
			}
		}
	}
	d.trial, d.failed = outerTrial, outerFailed
	var reasons []string
	if matched == 0 && !d.trial {
		// Read the first branches once more, recording, to say why.
		for i, b := range branches[:min(len(branches), maxBranchReasons)] {
			nv, nd := len(d.violations), d.dropped
			d.pos = start
			b(d)
			d.bad = false
			if len(d.violations) > nv {
				reasons = append(reasons, "branch "+strconv.Itoa(i+1)+": "+d.violations[nv].where()+d.violations[nv].Reason)
			}
			d.violations, d.dropped = d.violations[:nv], nd
		}
	}
	d.pos, d.rereading = end, outerRereading
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

// unionValue reads the next value once, for its text and the decoder's
// strictness, and returns where it starts; ok is false when it broke the
// strictness (reported), so that no branch is tried.
func (d *Decoder) unionValue() (start int, raw json.RawMessage, ok bool) {
	d.space()
	start, nv, nd, failed := d.pos, len(d.violations), d.dropped, d.failed
	d.failed = false
	if d.trial {
		// A branch being tried: the value's text is not kept.
		d.Skip()
		ok = !d.failed
		d.failed = failed || d.failed
		return start, nil, ok && d.syntax == nil
	}
	raw = d.Raw()
	return start, raw, d.syntax == nil && len(d.violations) == nv && d.dropped == nd
}

// Discriminated reads the next value, an object whose member property
// names its branch: values[i] selects branches[i]. The chosen branch's
// violations are reported as they are; a missing or unknown
// discriminator is a violation of the member. It returns the value's text
// as the client sent it.
func (d *Decoder) Discriminated(property string, values []string, branches ...Branch) json.RawMessage {
	start, raw, ok := d.unionValue()
	if !ok {
		return raw
	}
	end := d.pos
	outerRereading := d.rereading
	d.rereading = true
	defer func() { d.rereading = outerRereading }()
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
