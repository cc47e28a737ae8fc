package fingerprint

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// TestCanonicalizeRFC8785Sample is the sample of RFC 8785 section 3.2.2 with
// its canonical text and the UTF-8 bytes of section 3.2.4, transcribed.
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
	wantBytes, err := hex.DecodeString(strings.Join(strings.Fields(`
		7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
		75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
		5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
		65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
		5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
		30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d`), ""))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantBytes) {
		t.Errorf("bytes differ from section 3.2.4:\n got % x\nwant % x", got, wantBytes)
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

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"scalars", ` [ null , true , false , 0 , "" ] `, `[null,true,false,0,""]`},
		{"top-level scalar", `"x"`, `"x"`},
		{"top-level number", "\t\r\n 12 \n", `12`},
		{"empty containers", `{"a":{},"b":[],"c":[{}]}`, `{"a":{},"b":[],"c":[{}]}`},
		{"nested sorting", `{"b":{"d":1,"c":2},"a":[{"z":0,"y":[3,2,1]}]}`, `{"a":[{"y":[3,2,1],"z":0}],"b":{"c":2,"d":1}}`},
		{"arrays keep order", `[3,1,2,1]`, `[3,1,2,1]`},
		{"keys by code unit not length", `{"aa":1,"b":2,"a":3,"":4}`, `{"":4,"a":3,"aa":1,"b":2}`},
		{"same number spellings", `[1e2,100,100.0,1E+2,1.00e+02,10000e-2]`, `[100,100,100,100,100,100]`},
		{"negative zero", `[-0,-0.0,-0e5,0e-3]`, `[0,0,0,0]`},
		{"small and large", `[1e-6,1e-7,1e20,1e21,123456789012345678901234]`, `[0.000001,1e-7,100000000000000000000,1e+21,1.2345678901234569e+23]`},
		{"beyond 2^53 rounds like a double", `[9007199254740993,18446744073709551615]`, `[9007199254740992,18446744073709552000]`},
		{"underflow reads as zero", `[1e-400,-1e-400]`, `[0,0]`},
		{"fractions", `[0.1,-0.5,3.14159,1.5e300,-2.5e-300]`, `[0.1,-0.5,3.14159,1.5e+300,-2.5e-300]`},
		{"escapes written by JSON.stringify", `"\b\t\n\f\r\"\\"`, `"\b\t\n\f\r\"\\"`},
		{"other controls in lowercase hex", `"\u0000\u0001\u001F\u000B"`, `"\u0000\u0001\u001f\u000b"`},
		{"solidus and ASCII escapes unescaped", `"\/\u0041\u007e"`, `"/A~"`},
		{"DEL and non-ASCII literal", `"\u007f\u00e9\u2028\u2029\uffff"`, "\"\u007f\u00e9\u2028\u2029\uffff\""},
		{"surrogate pair", `"\ud83d\ude00\uD83D\uDE00"`, "\"\U0001F600\U0001F600\""},
		{"literal UTF-8 kept", "\"h\u00e9llo \U0001F600\"", "\"h\u00e9llo \U0001F600\""},
		{"escaped names sort by value", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
		{"supplementary before E000-FFFF", "{\"\uffff\":1,\"\U00010000\":2,\"\ue000\":3,\"\ud7ff\":4}", "{\"\ud7ff\":4,\"\U00010000\":2,\"\ue000\":3,\"\uffff\":1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Canonicalize(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCanonicalizeRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ``},
		{"whitespace only", ` `},
		{"byte order mark", "\ufeff{}"},
		{"duplicate name", `{"a":1,"a":1}`},
		{"duplicate after unescaping", `{"a":1,"\u0061":2}`},
		{"nested duplicate", `[{"x":{"k":1,"k":2}}]`},
		{"invalid UTF-8 in string", "\"\xff\""},
		{"invalid UTF-8 in name", "{\"\xc3\x28\":1}"},
		{"UTF-8 encoded surrogate", "\"\xed\xa0\x80\""},
		{"overlong encoding", "\"\xc0\xaf\""},
		{"lone high surrogate", `"\ud83d"`},
		{"high surrogate then text", `"\ud83dx"`},
		{"high surrogate then non-surrogate escape", `"\ud83d\u0041"`},
		{"lone low surrogate", `"\ude00"`},
		{"reversed pair", `"\ude00\ud83d"`},
		{"bad escape", `"\x"`},
		{"short unicode escape", `"\u12"`},
		{"raw control character", "\"a\nb\""},
		{"unterminated string", `"abc`},
		{"trailing data", `{} {}`},
		{"trailing comma in array", `[1,]`},
		{"trailing comma in object", `{"a":1,}`},
		{"missing colon", `{"a" 1}`},
		{"unquoted name", `{a:1}`},
		{"single quotes", `'a'`},
		{"leading zero", `01`},
		{"leading plus", `+1`},
		{"bare minus", `-`},
		{"no fraction digit", `1.`},
		{"no integer digit", `.5`},
		{"no exponent digit", `1e`},
		{"exponent sign only", `1e+`},
		{"hex number", `0x10`},
		{"NaN", `NaN`},
		{"Infinity", `Infinity`},
		{"overflow", `1e400`},
		{"negative overflow", `-1e309`},
		{"truncated literal", `tru`},
		{"wrong literal", `nul1`},
		{"unclosed array", `[1,2`},
		{"unclosed object", `{"a":1`},
		{"too deep", strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tt.in))
			if !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("Canonicalize(%q) = %q, %v; want an ErrInvalidJSON error", tt.in, got, err)
			}
			if err := Validate([]byte(tt.in)); !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("Validate(%q) = %v; want an ErrInvalidJSON error", tt.in, err)
			}
		})
	}
}

func TestCanonicalizeDepthLimit(t *testing.T) {
	in := strings.Repeat(`{"a":[`, maxDepth/2) + strings.Repeat(`]}`, maxDepth/2)
	got, err := Canonicalize([]byte(in))
	if err != nil {
		t.Fatalf("nesting of exactly %d levels: %v", maxDepth, err)
	}
	if string(got) != in {
		t.Errorf("Canonicalize changed an already canonical text")
	}
}

func TestCompareUTF16(t *testing.T) {
	// Reference: compare the UTF-16 encodings unit by unit.
	ref := func(a, b string) int {
		x, y := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
		return slices.Compare(x, y)
	}
	samples := []string{"", "a", "ab", "b", "\u0080", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uefff", "\uf000", "\uffff",
		"\U00010000", "\U0001F600", "\U0010FFFF", "a\U00010000", "a\uffff", "\uffffa", "\U00010000a"}
	for _, a := range samples {
		for _, b := range samples {
			if got, want := compareUTF16(a, b), ref(a, b); got != want {
				t.Errorf("compareUTF16(%+q, %+q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestSortKeys(t *testing.T) {
	in := []string{"\u20ac", "\r", "\ufb33", "1", "\U0001F600", "\u0080", "\u00f6"}
	want := []string{"\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33"}
	got := SortKeys(in)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SortKeys mismatch (-want +got):\n%s", diff)
	}
	if in[0] != "\u20ac" {
		t.Errorf("SortKeys modified its argument")
	}
}
