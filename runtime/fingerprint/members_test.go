package fingerprint

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMembersAsKeyAndValue checks that each member method writes exactly
// what Key followed by the value's method writes, and fails the same way:
// typed fingerprints generated with either form must be byte-identical.
func TestMembersAsKeyAndValue(t *testing.T) {
	s, i, i32, f, b := "é\u2028x", int64(1)<<53+1, int32(-7), 1e21, true
	bad, nan := "\xff", math.NaN()
	tests := []struct {
		name       string
		one, split func(w *Writer)
	}{
		{"string", func(w *Writer) { w.MemberString("a", s) }, func(w *Writer) { w.Key("a"); w.String(s) }},
		{"invalid string", func(w *Writer) { w.MemberString("a", bad) }, func(w *Writer) { w.Key("a"); w.String(bad) }},
		{"invalid name", func(w *Writer) { w.MemberString(bad, s) }, func(w *Writer) { w.Key(bad); w.String(s) }},
		{"int", func(w *Writer) { w.MemberInt("a", i) }, func(w *Writer) { w.Key("a"); w.Int(i) }},
		{"float", func(w *Writer) { w.MemberFloat("a", f) }, func(w *Writer) { w.Key("a"); w.Float(f) }},
		{"NaN", func(w *Writer) { w.MemberFloat("a", nan) }, func(w *Writer) { w.Key("a"); w.Float(nan) }},
		{"bool", func(w *Writer) { w.MemberBool("a", b) }, func(w *Writer) { w.Key("a"); w.Bool(b) }},
		{"optional string", func(w *Writer) { w.OptionalString("a", &s) }, func(w *Writer) { w.Key("a"); w.String(s) }},
		{"optional int", func(w *Writer) { w.OptionalInt("a", &i) }, func(w *Writer) { w.Key("a"); w.Int(i) }},
		{"optional int32", func(w *Writer) { w.OptionalInt32("a", &i32) }, func(w *Writer) { w.Key("a"); w.Int(int64(i32)) }},
		{"optional float", func(w *Writer) { w.OptionalFloat("a", &f) }, func(w *Writer) { w.Key("a"); w.Float(f) }},
		{"optional bool", func(w *Writer) { w.OptionalBool("a", &b) }, func(w *Writer) { w.Key("a"); w.Bool(b) }},
		{"absent string", func(w *Writer) { w.OptionalString("a", nil) }, func(*Writer) {}},
		{"absent int", func(w *Writer) { w.OptionalInt("a", nil) }, func(*Writer) {}},
		{"absent int32", func(w *Writer) { w.OptionalInt32("a", nil) }, func(*Writer) {}},
		{"absent float", func(w *Writer) { w.OptionalFloat("a", nil) }, func(*Writer) {}},
		{"absent bool", func(w *Writer) { w.OptionalBool("a", nil) }, func(*Writer) {}},
		// A member out of SortKeys order fails in both forms.
		{"out of order", func(w *Writer) { w.MemberBool("0", b) }, func(w *Writer) { w.Key("0"); w.Bool(b) }},
	}
	// write brackets a member between "1" and "b" so that order and
	// separators are exercised on both sides.
	write := func(member func(w *Writer)) (string, string) {
		var w Writer
		w.BeginObject()
		w.Key("1")
		w.Null()
		member(&w)
		w.Key("b")
		w.Null()
		w.EndObject()
		out, err := w.Result()
		if err != nil {
			return "", err.Error()
		}
		return string(out), ""
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantOut, wantErr := write(tt.split)
			gotOut, gotErr := write(tt.one)
			if diff := cmp.Diff(wantOut, gotOut); diff != "" {
				t.Errorf("bytes differ from Key and value (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantErr, gotErr); diff != "" {
				t.Errorf("error differs from Key and value (-want +got):\n%s", diff)
			}
		})
	}
}
