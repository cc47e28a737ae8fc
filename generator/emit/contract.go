package emit

import (
	"fmt"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
)

// emitContract declares an operation's run-time contract: the IR's value as
// runtime/idemimpl spells it, in reading order (what the operation is, its
// key and fingerprint, its timing, its concurrency, the failures it
// stores). Zero fields the runtime reads as their default are left out.
func emitContract(f *jen.File, op *ir.Operation) {
	c := op.Contract
	var optional jen.Code
	if c.Key.Optional {
		optional = jen.True()
	}
	key := []kv{{"Header", lit(c.Key.Header)}, {"BodyPointer", lit(c.Key.BodyPointer)}, {"Optional", optional}, {"MaxLength", jen.Lit(c.Key.MaxLength)}}
	fp := []kv{
		{"Include", stringSlice(c.Fingerprint.Include)},
		{"Exclude", stringSlice(c.Fingerprint.Exclude)},
		{"Unordered", stringSlice(c.Fingerprint.Unordered)},
	}
	concurrency := "ConcurrencyWait"
	if c.Concurrency == ir.ConcurrencyReject {
		concurrency = "ConcurrencyReject"
	}
	var failures jen.Code
	if len(c.StoreFailures) > 0 {
		var classes []jen.Code
		for _, s := range c.StoreFailures {
			if s.Class != 0 {
				classes = append(classes, jen.Values(jen.Id("Class").Op(":").Lit(s.Class)))
			} else {
				classes = append(classes, jen.Values(jen.Id("Status").Op(":").Lit(s.Status)))
			}
		}
		failures = jen.Index().Qual(idemimplImport, "StatusClass").Values(classes...)
	}
	var none jen.Code
	if c.StoreNoFailures {
		none = jen.True()
	}
	var current jen.Code
	if c.ReplayCurrent {
		current = jen.True()
	}
	var lease jen.Code // phased operations only
	if c.Lease > 0 {
		lease = duration(c.Lease)
	}
	fields := []kv{
		{"Operation", jen.Lit(c.Operation)},
		{"Method", jen.Lit(c.Method)},
		{"Route", jen.Lit(c.Route)},
		{"PathParams", stringSlice(c.PathParams)},
		{"MediaTypes", stringSlice(c.MediaTypes)},
		{"Key", jen.Qual(idemimplImport, "KeySpec").Values(keyed(key)...)},
		{"Fingerprint", jen.Qual(fingerprintImport, "Spec").Values(keyed(fp)...)},
		{"Retention", duration(c.Retention)},
		{"Tombstone", duration(c.Tombstone)},
		{"Concurrency", jen.Qual(idemimplImport, concurrency)},
		{"WaitTimeout", duration(c.WaitTimeout)},
		{"StoreFailures", failures},
		{"StoreNoFailures", none},
		{"ReplayCurrent", current},
		{"Lease", lease},
	}
	comment(f, fmt.Sprintf("%s is the run-time contract of %s.", op.ContractVar, op.Doc))
	f.Var().Id(op.ContractVar).Op("=").Qual(idemimplImport, "Contract").Values(keyed(fields)...)
}

// kv is one element of a keyed composite literal; a nil value leaves it
// out.
type kv struct {
	key   string
	value jen.Code
}

// keyed returns the elements of a keyed composite literal in the order
// given (jen.Dict would sort them by key), leaving out those without a
// value: one per line, or on the literal's line when there is one.
func keyed(elems []kv) []jen.Code {
	var out []jen.Code
	for _, e := range elems {
		if e.value != nil {
			out = append(out, jen.Id(e.key).Op(":").Add(e.value))
		}
	}
	if len(out) < 2 {
		return out
	}
	for i, e := range out {
		out[i] = jen.Line().Add(e)
	}
	return append(out, jen.Line())
}

// lit is the literal s; nil, for keyed to leave out, when s is empty.
func lit(s string) jen.Code {
	if s == "" {
		return nil
	}
	return jen.Lit(s)
}

// stringSlice is a []string literal of values; nil, for keyed to leave
// out, when there are none.
func stringSlice(values []string) jen.Code {
	if len(values) == 0 {
		return nil
	}
	lits := make([]jen.Code, len(values))
	for i, v := range values {
		lits[i] = jen.Lit(v)
	}
	return jen.Index().String().Values(lits...)
}

// duration writes d in the largest unit that divides it: 72 * time.Hour.
func duration(d time.Duration) jen.Code {
	units := []struct {
		name string
		d    time.Duration
	}{{"Hour", time.Hour}, {"Minute", time.Minute}, {"Second", time.Second}, {"Millisecond", time.Millisecond}}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			return jen.Lit(int(d/u.d)).Op("*").Qual(timeImport, u.name)
		}
	}
	return jen.Qual(timeImport, "Duration").Call(jen.Lit(int64(d)))
}
