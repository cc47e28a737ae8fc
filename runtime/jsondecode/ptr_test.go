package jsondecode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPtrAsTheValue holds StringPtr and EnumPtr to String and Enum: a new
// variable holding the same value, and the same violations.
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
	d := New([]byte(`"a"`))
	if p, q := d.StringPtr(), d.StringPtr(); p == q {
		t.Error("StringPtr returned the same variable twice")
	}
	_ = d.Finish()
}
