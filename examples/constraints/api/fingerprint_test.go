package api

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/fingerprint"
	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
)

// widgetSeeds are createWidget bodies whose wire forms a typed decode could
// fold: an optional nullable member sent as null, absent, or a string;
// date-times written with a fraction, lower-case letters, an offset of
// zero, or another offset; empty and absent arrays and maps.
var widgetSeeds = []string{
	string(widget(nil)),
	string(widget(func(m map[string]any) { delete(m, "nickname") })),
	string(widget(func(m map[string]any) { m["nickname"] = "nick" })),
	string(widget(func(m map[string]any) { m["at"] = "2026-12-01T10:00:00.000Z" })),
	string(widget(func(m map[string]any) { m["at"] = "2026-12-01T10:00:00.5+00:00" })),
	string(widget(func(m map[string]any) { m["at"] = "2026-12-01t10:00:00z" })),
	string(widget(func(m map[string]any) { m["at"] = "2026-12-01T11:00:00+01:00" })),
	string(widget(func(m map[string]any) { m["at"] = "2026-12-01T10:00:00-00:00" })),
	string(widget(func(m map[string]any) { m["tags"] = []any{} })),
	string(widget(func(m map[string]any) { delete(m, "tags"); delete(m, "attrs"); delete(m, "size") })),
	`{"id":"3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a","name":"ab","count":1,"color":"red","nickname":null,"NICKNAME":"x"}`,
	`{"id":"3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a","name":"ab","count":1,"color":"red","nickname":null,"nickname":"x"}`,
}

// Must show 2 on the second spec: random createWidget bodies never fail
// but as an invalid body; an accepted body re-encodes to a value that
// decodes the same; and its typed fingerprint equals the runtime's generic
// fingerprint of the same bytes, null members and every form of date-time
// included.
func FuzzDecodeCreateWidget(f *testing.F) {
	for _, s := range widgetSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := decodeCreateWidget(&idemimpl.Request{Body: body, Header: map[string][]string{"X-Source": {"web"}}})
		if err != nil {
			if !errors.Is(err, idem.ErrInvalidBody) {
				t.Fatalf("error %v is not an invalid body: it would answer 500", err)
			}
			return
		}
		b, err := json.Marshal(v.Body)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeCreateWidget(&idemimpl.Request{Body: b, Header: map[string][]string{"X-Source": {"web"}}})
		if err != nil {
			t.Fatalf("the re-encoded body %s is refused: %v", b, err)
		}
		if diff := cmp.Diff(v, again); diff != "" {
			t.Fatalf("re-encoded body %s decodes differently (-first +again):\n%s", b, diff)
		}
		c := contractCreateWidget
		want, err := c.Fingerprint.Sum(fingerprint.Request{Method: c.Method, Route: c.Route, Body: body})
		if err != nil {
			t.Fatalf("an accepted body the generic fingerprint refuses: %v", err)
		}
		got, err := fingerprintCreateWidget(v, nil)
		if err != nil || got != want {
			t.Fatalf("typed fingerprint %v (%v), generic %v, of %s", got, err, want, body)
		}
	})
}
