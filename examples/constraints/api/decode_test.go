package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/idemgen/idemgen/runtime/idemimpl"
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

// widgetCall is a createWidget request of body widget(edit), with its
// required header.
func widgetCall(edit func(m map[string]any)) call {
	return call{target: "/widgets", body: string(widget(edit)), contentType: "application/json", header: http.Header{"X-Source": {"web"}}}
}

// Query and header parameters are checked like the body, and reported
// with it, over HTTP.
func TestWidgetParams(t *testing.T) {
	s := newServer(t)
	good := widgetCall(nil)
	good.target = "/widgets?limit=100&dry_run=true"
	good.header.Set("X-Source", "app")
	bad := widgetCall(func(m map[string]any) { m["count"] = 0 })
	bad.target = "/widgets?limit=0&dry_run=maybe"
	bad.header = http.Header{}
	worse := widgetCall(func(m map[string]any) { m["count"] = 0 })
	worse.target = "/widgets?limit=ten&dry_run=maybe"
	worse.header.Set("X-Source", "fax")
	twice := widgetCall(nil)
	twice.target = "/widgets?limit=5&limit=100&dry_run=true"
	twice.header.Set("X-Source", "app")
	twice.header.Add("X-Source", "web")
	s.run(t, []check{
		{"missing header, bad query, bad body", bad, []string{"query:dry_run", "query:limit", "header:X-Source", "/count"}, good},
		{"header outside its enum, query not an integer", worse, []string{"query:dry_run", "query:limit", "header:X-Source", "/count"}, good},
		{"query and header sent twice", twice, []string{"query:limit", "header:X-Source"}, good},
	}, http.StatusCreated)
}

// Must show 1, second spec, over HTTP through the generated handlers on a
// real executor: each keyword the decoders check, with an invalid and a
// valid value; the invalid request answers 400 problem+json listing every
// violation's pointer and stores nothing, and the corrected retry with the
// same key runs.
func TestWidgetConstraints(t *testing.T) {
	s := newServer(t)
	set := func(k string, v any) func(m map[string]any) { return func(m map[string]any) { m[k] = v } }
	tests := []struct {
		name  string
		valid func(m map[string]any)
		bad   func(m map[string]any)
		want  []string
	}{
		{"required", nil, func(m map[string]any) { delete(m, "id"); delete(m, "color") }, []string{"/id", "/color"}},
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
	checks := make([]check, len(tests))
	for i, tt := range tests {
		checks[i] = check{name: tt.name, bad: widgetCall(tt.bad), want: tt.want, valid: widgetCall(tt.valid)}
	}
	s.run(t, checks, http.StatusCreated)
}

// The Stripe excerpt's body decodes; breaking it is refused over HTTP, and
// the excerpt's own body then runs under the same key.
func TestStripeCustomerBody(t *testing.T) {
	req, err := decodePostCustomers(&idemimpl.Request{Body: stripeCustomer})
	if err != nil {
		t.Fatal(err)
	}
	if v := req.Body; v == nil || v.Name == nil || *v.Name != "Jenny Rosen" || len(v.TaxIDData) != 3 {
		t.Errorf("decoded %+v", v)
	}
	if req, err := decodePostCustomers(&idemimpl.Request{}); err != nil || req.Body != nil {
		t.Errorf("an empty optional body: %+v, %v", req, err)
	}
	s := newServer(t)
	customer := func(body string) call {
		return call{target: "/v1/customers", body: body, contentType: "application/json"}
	}
	s.run(t, []check{
		{"enum, required in an item, integer", customer(`{"tax_exempt":"sometimes","tax_id_data":[{"type":"eu_vat"}],"balance":1.5}`),
			[]string{"/tax_exempt", "/tax_id_data/0/value", "/balance"}, customer(string(stripeCustomer))},
		{"additionalProperties false, maxLength", customer(`{"nmae":"x","phone":"+1 415 555 0123 4567 890"}`),
			[]string{"/nmae", "/phone"}, customer(`{"name":"x","phone":"+14155550123"}`)},
	}, http.StatusOK)
}
