package jsondecode

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPtrAsTheValue holds StringPtr, EnumPtr, Int32Ptr, Int64Ptr, FloatPtr
// and BoolPtr to String, Enum, Int (with the bounds generated code passed
// it), Float and Bool: a new variable holding the same value, and the same
// violations.
func TestPtrAsTheValue(t *testing.T) {
	values := []string{"card", "cash"}
	for _, body := range []string{`"card"`, `"cheque"`, `""`, `null`, `7`, `"c\u0000"`, `"card`} {
		wantS, want := decodeEnum(body, func(d *Decoder) string { return d.String() })
		gotS, got := decodeEnum(body, func(d *Decoder) string { return *d.StringPtr() })
		if gotS != wantS {
			t.Errorf("StringPtr %s: %q, want %q", body, gotS, wantS)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("StringPtr %s: violations (-want +got):\n%s", body, diff)
		}
		wantE, want := decodeEnum(body, func(d *Decoder) string { return d.Enum(values) })
		gotE, got := decodeEnum(body, func(d *Decoder) string { return *d.EnumPtr(values) })
		if gotE != wantE {
			t.Errorf("EnumPtr %s: %q, want %q", body, gotE, wantE)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("EnumPtr %s: violations (-want +got):\n%s", body, diff)
		}
	}
	for _, body := range []string{`7`, `-7`, `2147483648`, `9007199254740992`, `1.5`, `1e2`, `true`, `false`, `null`, `"7"`, `tru`, `-`} {
		for _, c := range []struct {
			name      string
			value, pt func(d *Decoder) string
		}{
			{"Int32Ptr", func(d *Decoder) string { return fmt.Sprint(int32(d.Int(math.MinInt32, math.MaxInt32))) }, func(d *Decoder) string { return fmt.Sprint(*d.Int32Ptr()) }},
			{"Int64Ptr", func(d *Decoder) string { return fmt.Sprint(d.Int(-MaxExactInt, MaxExactInt)) }, func(d *Decoder) string { return fmt.Sprint(*d.Int64Ptr()) }},
			{"FloatPtr", func(d *Decoder) string { return fmt.Sprint(d.Float()) }, func(d *Decoder) string { return fmt.Sprint(*d.FloatPtr()) }},
			{"BoolPtr", func(d *Decoder) string { return fmt.Sprint(d.Bool()) }, func(d *Decoder) string { return fmt.Sprint(*d.BoolPtr()) }},
		} {
			sameRead(t, c.name, body, c.value, c.pt)
		}
	}
	d := New([]byte(`"a"`))
	if p, q := d.StringPtr(), d.StringPtr(); p == q {
		t.Error("StringPtr returned the same variable twice")
	}
	_ = d.Finish()
}

// TestToAsTheValue holds the To forms to the reads they store: the same
// value in the field, and the same violations.
func TestToAsTheValue(t *testing.T) {
	type fields struct {
		S   string
		PS  *string
		P32 *int32
		P64 *int64
		PF  *float64
		PB  *bool
	}
	for _, body := range []string{`"a"`, `7`, `2147483648`, `1.5`, `true`, `null`, `"a`} {
		for _, c := range []struct {
			name      string
			value, to func(d *Decoder) string
		}{
			{"StringTo", func(d *Decoder) string { return d.String() }, func(d *Decoder) string { var v fields; d.StringTo(&v.S); return v.S }},
			{"StringPtrTo", func(d *Decoder) string { return *d.StringPtr() }, func(d *Decoder) string { var v fields; d.StringPtrTo(&v.PS); return *v.PS }},
			{"Int32PtrTo", func(d *Decoder) string { return fmt.Sprint(*d.Int32Ptr()) }, func(d *Decoder) string { var v fields; d.Int32PtrTo(&v.P32); return fmt.Sprint(*v.P32) }},
			{"Int64PtrTo", func(d *Decoder) string { return fmt.Sprint(*d.Int64Ptr()) }, func(d *Decoder) string { var v fields; d.Int64PtrTo(&v.P64); return fmt.Sprint(*v.P64) }},
			{"FloatPtrTo", func(d *Decoder) string { return fmt.Sprint(*d.FloatPtr()) }, func(d *Decoder) string { var v fields; d.FloatPtrTo(&v.PF); return fmt.Sprint(*v.PF) }},
			{"BoolPtrTo", func(d *Decoder) string { return fmt.Sprint(*d.BoolPtr()) }, func(d *Decoder) string { var v fields; d.BoolPtrTo(&v.PB); return fmt.Sprint(*v.PB) }},
		} {
			sameRead(t, c.name, body, c.value, c.to)
		}
	}
}

// sameRead checks that read gives the value and the violations that want
// gives on body.
func sameRead(t *testing.T, name, body string, want, read func(d *Decoder) string) {
	t.Helper()
	wantV, wantErr := decodeEnum(body, want)
	gotV, gotErr := decodeEnum(body, read)
	if gotV != wantV {
		t.Errorf("%s %s: %s, want %s", name, body, gotV, wantV)
	}
	if diff := cmp.Diff(wantErr, gotErr); diff != "" {
		t.Errorf("%s %s: violations (-want +got):\n%s", name, body, diff)
	}
}
