package fingerprint

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// fuzzSeeds are the starting corpus of both fuzz targets.
var fuzzSeeds = []string{
	`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`,
	`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7}`,
	`{"x":1,"items":[{"x":2,"b":[3,1,2]},{"a":null}],"tags":["b","a","b"]}`,
	`[1e21,1e-7,-0,5e-324,1.7976931348623157e308,9007199254740993]`,
	`"\u2028\u2029\u007f\u0000"`,
	`{"a":{"b":{"c":[[],{},""]}}}`,
	`{"a":1,"a":2}`,
	`"\ud800"`,
}

// FuzzCanonicalize checks Canonicalize against encoding/json on arbitrary
// input: whatever it accepts is valid JSON with the same meaning, its output
// is a fixed point, and the Writer renders that meaning to the same bytes.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonicalize(in)
		if err != nil {
			if Validate(in) == nil {
				t.Fatalf("Validate accepts what Canonicalize rejects: %v", err)
			}
			return
		}
		if err := Validate(in); err != nil {
			t.Fatalf("Validate rejects what Canonicalize accepts: %v", err)
		}
		if !json.Valid(in) {
			t.Fatalf("accepted invalid JSON %q", in)
		}
		again, err := Canonicalize(out)
		if err != nil {
			t.Fatalf("Canonicalize(%q) = %q, which it rejects: %v", in, out, err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", in, out, again)
		}
		var vin, vout any
		if err := json.Unmarshal(in, &vin); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &vout); err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		if !reflect.DeepEqual(vin, vout) {
			t.Fatalf("meaning changed: %q -> %q", in, out)
		}
		var w Writer
		writeAny(&w, vin, false)
		written, err := w.Result()
		if err != nil {
			t.Fatalf("Writer on %q: %v", in, err)
		}
		if !bytes.Equal(written, out) {
			t.Fatalf("Writer %q, Canonicalize %q", written, out)
		}
	})
}

// fuzzSpec makes arrays at the first two levels unordered and excludes the
// members named x there, so the re-serialisation may shuffle and change them.
var fuzzSpec = Spec{
	Exclude:   []string{"/x", "/*/x"},
	Unordered: []string{"/*", "/*/*"},
}

// FuzzReserialize respells any accepted input with the same meaning (new
// whitespace, shuffled members, numbers in other notations, \u escapes) and
// requires the same canonical form and, with unordered arrays shuffled and
// excluded members changed, the same Sum.
func FuzzReserialize(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		want, err := Canonicalize(in)
		if err != nil {
			return
		}
		var v any
		if err := json.Unmarshal(in, &v); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		plain := reserializer{r: r}
		plain.value(v, 0)
		got, err := Canonicalize(plain.buf)
		if err != nil {
			t.Fatalf("re-serialisation %q of %q: %v", plain.buf, in, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q and %q canonicalise to\n%q\n%q", in, plain.buf, want, got)
		}

		req := Request{Method: "POST", Route: "/f", Body: in}
		wantSum, err := fuzzSpec.Sum(req)
		if err != nil {
			t.Fatal(err)
		}
		shuffled := reserializer{r: r, shuffleDepths: []int{1, 2}, excludedName: "x"}
		shuffled.value(v, 0)
		req.Body = shuffled.buf
		gotSum, err := fuzzSpec.Sum(req)
		if err != nil {
			t.Fatalf("Sum of %q: %v", shuffled.buf, err)
		}
		if gotSum != wantSum {
			t.Fatalf("%q and %q fingerprint differently", in, shuffled.buf)
		}
	})
}
