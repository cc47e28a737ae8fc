package emit

import (
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/idemgen/idemgen/generator/ir"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// spaces is a run of blanks, which gofmt's alignment varies.
var spaces = regexp.MustCompile(`[ \t]+`)

// unplanned are the fields of the runtime's contract that no spec sets, so
// the IR has none and the generated literal leaves them at zero.
var unplanned = []string{"ReplayHeaders"}

// The contract literal reads in the contract's order and writes every
// field of the runtime's Contract that the spec can set: a field the
// runtime gains fails here until the IR and the emitter carry it.
func TestContractLiteral(t *testing.T) {
	op := &ir.Operation{ContractVar: "contractX", Doc: "x (POST /x/{id})", Contract: ir.Contract{
		Operation: "x", Method: "POST", Route: "/x/{id}", PathParams: []string{"id"}, MediaTypes: []string{"application/json"},
		Key:             ir.Key{BodyPointer: "/key", Optional: true, MaxLength: 64},
		Fingerprint:     ir.FingerprintSpec{Include: []string{"/a"}, Exclude: []string{"/a/b"}, Unordered: []string{"/a/c"}},
		Retention:       time.Hour,
		Tombstone:       90 * time.Minute,
		Concurrency:     ir.ConcurrencyReject,
		WaitTimeout:     1500 * time.Millisecond,
		StoreFailures:   []ir.StatusClass{{Class: 4}, {Status: 503}},
		StoreNoFailures: true,
		ReplayCurrent:   true,
		Lease:           2 * time.Minute,
	}}
	f := jen.NewFile("p")
	emitContract(f, op)
	src := f.GoString()
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\t(\w+):`).FindAllStringSubmatch(src, -1) {
		got = append(got, m[1])
	}
	var want []string
	for field := range reflect.TypeFor[idemimpl.Contract]().Fields() {
		if !slices.Contains(unplanned, field.Name) {
			want = append(want, field.Name)
		}
	}
	slices.Sort(want)
	if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, want) {
		t.Errorf("contract literal writes %q, want the runtime's fields %q", sorted, want)
	}
	if len(got) < 3 || !slices.Equal(got[:3], []string{"Operation", "Method", "Route"}) {
		t.Errorf("contract literal starts %q, want Operation, Method, Route", got)
	}
	for _, part := range []string{`BodyPointer: "/key"`, "Optional: true", "MaxLength: 64", `Exclude: []string{"/a/b"}`, "Retention: 1 * time.Hour",
		"Tombstone: 90 * time.Minute", "WaitTimeout: 1500 * time.Millisecond", "Concurrency: idemimpl.ConcurrencyReject", "{Class: 4}, {Status: 503}", "ReplayCurrent: true"} {
		if !regexp.MustCompile(regexp.QuoteMeta(part)).MatchString(spaces.ReplaceAllString(src, " ")) {
			t.Errorf("contract literal lacks %s:\n%s", part, src)
		}
	}
}
