package api

import (
	"net/http"
	"net/url"
	"testing"
)

// gadgetCall is a createGadget request whose form body is a valid gadget
// with edit applied.
func gadgetCall(edit func(v url.Values)) call {
	v := url.Values{
		"name": {"cog-1"}, "quantity": {"5"}, "sku": {"3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a"}, "price": {"2.5"},
		"color": {"red"}, "email": {"ada@example.com"}, "homepage": {"https://example.com/g"}, "launch": {"2026-12-01"},
		"at": {"2026-12-01T10:00:00Z"}, "tags[0]": {"a"}, "tags[1]": {"b"}, "attrs[x]": {"1"}, "dims[w]": {"2"}, "dims[unit]": {"cm"},
	}
	if edit != nil {
		edit(v)
	}
	return call{target: "/gadgets", body: v.Encode(), contentType: "application/x-www-form-urlencoded"}
}

// A form body is checked against its schema like a JSON one: each kind of
// keyword that applies to form fields, with an invalid and a valid value,
// over HTTP; the violations are named by the JSON pointer of their field,
// all of them at once, and a scalar given twice is refused.
func TestFormConstraints(t *testing.T) {
	s := newServer(t)
	set := func(k string, vs ...string) func(v url.Values) { return func(v url.Values) { v[k] = vs } }
	del := func(k string) func(v url.Values) { return func(v url.Values) { v.Del(k) } }
	tests := []struct {
		name       string
		bad, valid func(v url.Values)
		want       []string
	}{
		{"required", del("quantity"), nil, []string{"/quantity"}},
		{"required nested, and too few members then", del("dims[w]"), nil, []string{"/dims/w", "/dims"}},
		{"minLength", set("name", "a"), set("name", "ab"), []string{"/name"}},
		{"maxLength", set("name", "abcdefghijk"), set("name", "abcdefghij"), []string{"/name"}},
		{"pattern", set("name", "1a"), set("name", "a-1"), []string{"/name"}},
		{"format uuid", set("sku", "not-a-uuid"), nil, []string{"/sku"}},
		{"format email", set("email", "Ada <ada@example.com>"), nil, []string{"/email"}},
		{"format uri", set("homepage", "/relative"), nil, []string{"/homepage"}},
		{"format date", set("launch", "2026-13-01"), nil, []string{"/launch"}},
		{"format date-time", set("at", "2026-12-01"), nil, []string{"/at"}},
		{"minimum", set("quantity", "0"), set("quantity", "1"), []string{"/quantity"}},
		{"maximum", set("quantity", "101"), set("quantity", "100"), []string{"/quantity"}},
		{"int32 range", set("quantity", "3000000000"), nil, []string{"/quantity"}},
		{"integer type", set("quantity", "1.5"), nil, []string{"/quantity"}},
		{"exclusiveMinimum", set("price", "0"), set("price", "0.5"), []string{"/price"}},
		{"multipleOf", set("price", "0.3"), set("price", "1.5"), []string{"/price"}},
		{"enum", set("color", "blue"), set("color", "green"), []string{"/color"}},
		{"nested enum", set("dims[unit]", "mm"), set("dims[unit]", "in"), []string{"/dims/unit"}},
		{"nested minimum", set("dims[w]", "-1"), set("dims[w]", "0"), []string{"/dims/w"}},
		{"additionalProperties false", set("dims[depth]", "3"), del("dims[depth]"), []string{"/dims/depth"}},
		{"minProperties", del("dims[unit]"), nil, []string{"/dims"}},
		{"every key that does not fit, at once", func(v url.Values) { v.Del("quantity"); v.Set("price", "cheap"); v.Set("dims[w]", "wide") },
			nil, []string{"/quantity", "/price", "/dims/w"}},
		{"uniqueItems of objects", func(v url.Values) {
			v.Set("parts[0][sku]", "a")
			v.Set("parts[0][qty]", "1")
			v.Set("parts[1][qty]", "1")
			v.Set("parts[1][sku]", "a")
		}, func(v url.Values) {
			v.Set("parts[0][sku]", "a")
			v.Set("parts[0][qty]", "1")
			v.Set("parts[1][sku]", "a")
			v.Set("parts[1][qty]", "2")
		}, []string{"/parts/1"}},
		{"maxItems", func(v url.Values) { v["tags[]"] = []string{"a", "b", "c", "d"}; v.Del("tags[0]"); v.Del("tags[1]") },
			func(v url.Values) { v["tags[]"] = []string{"a", "b", "c"}; v.Del("tags[0]"); v.Del("tags[1]") }, []string{"/tags"}},
		{"uniqueItems", set("tags[1]", "a"), nil, []string{"/tags/1"}},
		{"items minLength", set("tags[1]", ""), nil, []string{"/tags/1"}},
		{"maxProperties", func(v url.Values) { v.Set("attrs[y]", "2"); v.Set("attrs[z]", "3") }, set("attrs[y]", "2"), []string{"/attrs"}},
		{"map values", set("attrs[x]", "-1"), nil, []string{"/attrs/x"}},
		{"NUL", set("name", "a\x00b"), nil, []string{"/name"}},
		{"invalid UTF-8", set("email", "\xff@example.com"), nil, []string{"/email"}},
		{"a scalar given twice", set("name", "cog-1", "cog-2"), nil, []string{"/name"}},
		{"every keyword violation at once", func(v url.Values) {
			v.Set("name", "1")
			v.Set("price", "0.3")
			v.Set("color", "blue")
			v.Set("tags[1]", "a")
			v.Set("dims[w]", "-1")
		}, nil, []string{"/name", "/name", "/price", "/color", "/tags/1", "/dims/w"}},
	}
	checks := make([]check, len(tests))
	for i, tt := range tests {
		checks[i] = check{name: tt.name, bad: gadgetCall(tt.bad), want: tt.want, valid: gadgetCall(tt.valid)}
	}
	s.run(t, checks, http.StatusCreated)
}
