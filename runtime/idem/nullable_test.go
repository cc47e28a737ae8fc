package idem_test

import (
	"encoding/json"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
)

// A Nullable keeps absent, null and a value apart through encoding/json,
// as a generated type tags it (omitzero).
func TestNullableKeepsNullApartFromAbsent(t *testing.T) {
	type body struct {
		Nick idem.Nullable[string] `json:"nick,omitzero"`
	}
	for _, text := range []string{`{}`, `{"nick":null}`, `{"nick":"ann"}`} {
		var b body
		if err := json.Unmarshal([]byte(text), &b); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != text {
			t.Errorf("%s decodes to %+v and encodes as %s", text, b, out)
		}
	}
	var b body
	if err := json.Unmarshal([]byte(`{"nick":null}`), &b); err != nil || !b.Nick.Set || !b.Nick.Null {
		t.Errorf("null: %+v, %v", b.Nick, err)
	}
}
