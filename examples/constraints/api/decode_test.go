package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/jsondecode"
)

// widget is a valid createWidget body with edit applied.
func widget(edit func(m map[string]any)) []byte {
	m := map[string]any{
		"id": "3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a", "name": "cog-1", "count": 5, "color": "red",
		"email": "ada@example.com", "homepage": "https://example.com/w", "launch": "2026-12-01", "at": "2026-12-01T10:00:00Z",
		"big": 9007199254740991, "ratio": 0.75, "kind": "gear", "level": 2, "nickname": nil, "tags": []any{"a", "b"},
		"attrs": map[string]any{"x": 1}, "size": map[string]any{"w": 2}, "owner": map[string]any{"name": "ann", "since": "2020-01-01"},
		"shape": map[string]any{"r": 1}, "active": true,
	}
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// violations decodes body as createWidget's and returns the pointers of
// its violations; nil when it is accepted.
func violations(t *testing.T, body []byte) []string {
	t.Helper()
	return violationsOf(t, &idemimpl.Request{Body: body, Header: http.Header{"X-Source": {"web"}}})
}

// violationsOf decodes r as a createWidget request and returns where its
// violations are: a body pointer, or in:name for a parameter.
func violationsOf(t *testing.T, r *idemimpl.Request) []string {
	t.Helper()
	_, err := decodeCreateWidget(r)
	if err == nil {
		return nil
	}
	var e *jsondecode.Error
	if !errors.Is(err, idemimpl.ErrInvalidBody) || !errors.As(err, &e) {
		t.Fatalf("error %v is not a list of violations", err)
	}
	out := []string{}
	for _, v := range e.Violations {
		if v.Parameter != "" {
			out = append(out, v.In+":"+v.Parameter)
			continue
		}
		out = append(out, v.Pointer)
	}
	return out
}

// Query and header parameters are checked like the body, and reported
// with it.
func TestWidgetParams(t *testing.T) {
	good := &idemimpl.Request{Body: widget(nil), Header: http.Header{"X-Source": {"app"}}, Query: url.Values{"limit": {"100"}, "dry_run": {"true"}}}
	if got := violationsOf(t, good); got != nil {
		t.Errorf("valid parameters refused at %v", got)
	}
	bad := &idemimpl.Request{Body: widget(func(m map[string]any) { m["count"] = 0 }), Header: http.Header{},
		Query: url.Values{"limit": {"0"}, "dry_run": {"maybe"}}}
	want := []string{"query:dry_run", "query:limit", "header:X-Source", "/count"}
	if diff := cmp.Diff(want, violationsOf(t, bad)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	bad.Header.Set("X-Source", "fax")
	bad.Query.Set("limit", "ten")
	want = []string{"query:dry_run", "query:limit", "header:X-Source", "/count"}
	if diff := cmp.Diff(want, violationsOf(t, bad)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// Must show 1, second spec: each keyword the decoders check, with a valid
// and an invalid value; the invalid ones are refused with the pointer of
// every violation. (Over HTTP such a refusal is the 400 that
// examples/orders tests, before anything is claimed.)
func TestWidgetConstraints(t *testing.T) {
	set := func(k string, v any) func(m map[string]any) { return func(m map[string]any) { m[k] = v } }
	tests := []struct {
		name  string
		valid func(m map[string]any)
		bad   func(m map[string]any)
		want  []string
	}{
		{"required", nil, func(m map[string]any) { delete(m, "id"); delete(m, "color") }, []string{"/color", "/id"}},
		{"additionalProperties false", nil, set("extra", 1), []string{"/extra"}},
		{"format uuid", nil, set("id", "not-a-uuid"), []string{"/id"}},
		{"minLength", set("name", "ab"), set("name", "a"), []string{"/name"}},
		{"maxLength", set("name", "abcdefghij"), set("name", "abcdefghijk"), []string{"/name"}},
		{"pattern", set("name", "a-1"), set("name", "1a"), []string{"/name"}},
		{"format email", nil, set("email", "Ada <ada@example.com>"), []string{"/email"}},
		{"format uri", nil, set("homepage", "/relative"), []string{"/homepage"}},
		{"format date", nil, set("launch", "2026-13-01"), []string{"/launch"}},
		{"format date-time", nil, set("at", "2026-12-01"), []string{"/at"}},
		{"exclusiveMinimum", set("count", 1), set("count", 0), []string{"/count"}},
		{"maximum", set("count", 100), set("count", 101), []string{"/count"}},
		{"int32 range", nil, set("count", 3000000000), []string{"/count"}},
		{"int64 exact range", nil, set("big", 9007199254740992), []string{"/big"}},
		{"exclusiveMaximum", set("ratio", 0), set("ratio", 1), []string{"/ratio"}},
		{"multipleOf", set("ratio", 0.5), set("ratio", 0.3), []string{"/ratio"}},
		{"string enum", set("color", "blue"), set("color", "Blue"), []string{"/color"}},
		{"single-value enum", nil, set("kind", "cog"), []string{"/kind"}},
		{"integer enum", set("level", 3), set("level", 4), []string{"/level"}},
		{"nullable", set("nickname", "nick"), set("nickname", "toolong"), []string{"/nickname"}},
		{"not nullable", nil, set("name", nil), []string{"/name"}},
		{"maxItems", set("tags", []any{"a", "b", "c"}), set("tags", []any{"a", "b", "c", "d"}), []string{"/tags"}},
		{"uniqueItems", nil, set("tags", []any{"a", "a"}), []string{"/tags/1"}},
		{"items minLength", nil, set("tags", []any{""}), []string{"/tags/0"}},
		{"minProperties of a map", nil, set("attrs", map[string]any{}), []string{"/attrs"}},
		{"maxProperties of a map", set("attrs", map[string]any{"a": 1, "b": 2}), set("attrs", map[string]any{"a": 1, "b": 2, "c": 3}), []string{"/attrs"}},
		{"map values", nil, set("attrs", map[string]any{"a": -1}), []string{"/attrs/a"}},
		{"minProperties of a struct", nil, set("size", map[string]any{}), []string{"/size"}},
		{"allOf merged", nil, set("owner", map[string]any{"name": ""}), []string{"/owner/name", "/owner/since"}},
		{"oneOf strictly", set("shape", map[string]any{"side": 2}), set("shape", json.RawMessage(`{"r":1,"r":2}`)), []string{"/shape/r"}},
		{"oneOf matching none", nil, set("shape", map[string]any{"r": 0}), []string{"/shape"}},
		{"oneOf matching two", nil, set("shape", map[string]any{"r": 1, "side": 2}), []string{"/shape"}},
		{"anyOf", set("mount", 2), set("mount", "floor"), []string{"/mount"}},
		{"discriminator", set("part", map[string]any{"kind": "Spring", "rate": 0.5}), set("part", map[string]any{"kind": "Gear", "teeth": 2}), []string{"/part/teeth"}},
		{"unknown discriminator", nil, set("part", map[string]any{"kind": "Lever"}), []string{"/part/kind"}},
		{"boolean", nil, set("active", "yes"), []string{"/active"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := violations(t, widget(tt.valid)); got != nil {
				t.Errorf("the valid body is refused at %v", got)
			}
			if diff := cmp.Diff(tt.want, violations(t, widget(tt.bad))); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// The Stripe excerpt's body decodes, and breaking it is refused.
func TestStripeCustomerBody(t *testing.T) {
	v, err := decodePostCustomers(&idemimpl.Request{Body: stripeCustomer})
	if err != nil {
		t.Fatal(err)
	}
	if v.Name == nil || *v.Name != "Jenny Rosen" || len(v.TaxIDData) != 3 {
		t.Errorf("decoded %+v", v)
	}
	bad := []byte(`{"tax_exempt":"sometimes","tax_id_data":[{"type":"eu_vat"}],"balance":1.5}`)
	want := []string{"/tax_exempt", "/tax_id_data/0/value", "/balance"}
	var e *jsondecode.Error
	if _, err := decodePostCustomers(&idemimpl.Request{Body: bad}); !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, v := range e.Violations {
		got = append(got, v.Pointer)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if v, err := decodePostCustomers(&idemimpl.Request{}); v != nil || err != nil {
		t.Errorf("an empty optional body: %v, %v", v, err)
	}
}
