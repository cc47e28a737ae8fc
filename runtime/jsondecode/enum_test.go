package jsondecode

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeEnum runs read on body and returns the value and the violations.
func decodeEnum(body string, read func(d *Decoder) string) (string, []Violation) {
	d := New([]byte(body))
	v := read(d)
	var e *Error
	if errors.As(d.Finish(), &e) {
		return v, e.Violations
	}
	return v, nil
}

// TestEnumAsTheSwitchItReplaced holds Decoder.Enum to what generated enum
// decoders did before it, String then a switch over the values and
// NotOneOf with the quoted values: the same value and the same violations
// for every kind of body.
func TestEnumAsTheSwitchItReplaced(t *testing.T) {
	values := []string{"card", "", "say \"hi\"", "ünï"}
	switched := func(d *Decoder) string {
		v := d.String()
		switch v {
		case "card", "", "say \"hi\"", "ünï":
		default:
			d.NotOneOf(`one of "card", "", "say \"hi\"", "ünï"`)
		}
		return v
	}
	bodies := []string{
		`"card"`, `""`, `"say \"hi\""`, `"\u00fcn\u00ef"`, `"Card"`, `"cash"`,
		`null`, `1`, `{}`, `"c\u0000ard"`, `"\ud800"`, "\"\xff\"", `"card`, ``, `"card" x`,
	}
	for _, body := range bodies {
		wantV, want := decodeEnum(body, switched)
		gotV, got := decodeEnum(body, func(d *Decoder) string { return d.Enum(values) })
		if gotV != wantV {
			t.Errorf("%s: value %q, want %q", body, gotV, wantV)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: violations (-want +got):\n%s", body, diff)
		}
	}
	if _, got := decodeEnum(`"cash"`, func(d *Decoder) string { return d.Enum(values) }); len(got) != 1 || got[0].Reason != `must be one of "card", "", "say \"hi\"", "ünï"` {
		t.Errorf("violations of a value outside the enum: %v", got)
	}
}
