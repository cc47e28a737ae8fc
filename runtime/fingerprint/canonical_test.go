package fingerprint

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCanonicalizeRFC8785Sample is the sample of RFC 8785 section 3.2.2 with
// its output from section 3.2.3 (a Go literal: the same UTF-8 bytes as
// section 3.2.4 lists).
func TestCanonicalizeRFC8785Sample(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	got, err := Canonicalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Canonicalize mismatch (-want +got):\n%s", diff)
	}
}

// TestCanonicalizeSortsByUTF16 uses the names of RFC 8785 section 3.2.3's
// sorting example, whose expected order differs from UTF-8 byte order: the
// emoji (a surrogate pair) sorts before U+FB33.
func TestCanonicalizeSortsByUTF16(t *testing.T) {
	in := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	want := "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\",\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"
	got, err := Canonicalize([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Canonicalize mismatch (-want +got):\n%s", diff)
	}
}

// TestNumbersRFC8785AppendixB transcribes the finite rows of RFC 8785
// Appendix B: IEEE-754 bit patterns and their canonical text.
func TestNumbersRFC8785AppendixB(t *testing.T) {
	tests := []struct{ bits, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	}
	for _, tt := range tests {
		t.Run(tt.bits, func(t *testing.T) {
			u, err := strconv.ParseUint(tt.bits, 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			f := math.Float64frombits(u)
			if got := string(appendNumber(nil, f)); got != tt.want {
				t.Errorf("appendNumber(%v) = %s, want %s", f, got, tt.want)
			}
			// The expected text must also survive a round trip through the
			// parser, and the Writer must agree.
			got, err := Canonicalize([]byte(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Canonicalize(%s) = %s", tt.want, got)
			}
			var w Writer
			w.Float(f)
			wb, err := w.Result()
			if err != nil {
				t.Fatal(err)
			}
			if string(wb) != tt.want {
				t.Errorf("Writer.Float(%v) = %s, want %s", f, wb, tt.want)
			}
		})
	}
	for _, bits := range []string{"7fffffffffffffff", "7ff0000000000000"} {
		u, _ := strconv.ParseUint(bits, 16, 64)
		var w Writer
		w.Float(math.Float64frombits(u))
		if _, err := w.Result(); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("Writer.Float(%s): error %v, want ErrInvalidValue", bits, err)
		}
	}
}
