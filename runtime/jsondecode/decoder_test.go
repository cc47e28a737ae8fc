package jsondecode

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// item is what a generated decoder of {"sku": string maxLength 8,
// "quantity": integer minimum 1} (both required, additionalProperties
// false) looks like.
type item struct {
	Sku      string
	Quantity int64
}

func (v *item) decode(d *Decoder) {
	if !d.BeginObject() {
		return
	}
	var hasSku, hasQuantity bool
	for d.Member() {
		switch string(d.Key()) {
		case "sku":
			hasSku = true
			v.Sku = d.String()
			d.MaxLength(v.Sku, 8)
		case "quantity":
			hasQuantity = true
			v.Quantity = d.Int(-MaxExactInt, MaxExactInt)
			d.Minimum(float64(v.Quantity), 1, false)
		default:
			d.Unknown()
		}
	}
	if !hasSku {
		d.Missing("sku")
	}
	if !hasQuantity {
		d.Missing("quantity")
	}
}

type order struct {
	Customer string
	Items    []item
}

func (v *order) decode(d *Decoder) {
	if !d.BeginObject() {
		return
	}
	for d.Member() {
		switch string(d.Key()) {
		case "customer_id":
			v.Customer = d.String()
		case "items":
			mark := d.Mark()
			if d.BeginArray() {
				v.Items = []item{}
				for d.Next() {
					var e item
					e.decode(d)
					v.Items = append(v.Items, e)
				}
				d.MinItems(len(v.Items), 1)
				d.UniqueItems(mark)
			}
		default:
			d.Skip()
		}
	}
}

func decodeOrder(body string) (order, []Violation) {
	var v order
	d := New([]byte(body))
	v.decode(d)
	err := d.Finish()
	var e *Error
	if errors.As(err, &e) {
		return v, e.Violations
	}
	return v, nil
}

func TestDecoderViolations(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Violation
	}{
		{"valid", `{"customer_id":"c42","items":[{"sku":"A","quantity":1}]}`, nil},
		{"case variant is an unknown member, ignored here", `{"customer_id":"c42","CUSTOMER_ID":"evil"}`, nil},
		{"duplicate member", `{"customer_id":"c42","customer_id":"evil"}`, []Violation{{Pointer: "/customer_id", Reason: "member given more than once"}}},
		{"escaped duplicate", `{"customer_id":"c42","customer\u005fid":"evil"}`, []Violation{{Pointer: "/customer_id", Reason: "member given more than once"}}},
		{"NUL", `{"customer_id":"c\u0000x"}`, []Violation{{Pointer: "/customer_id", Reason: "must not contain NUL (\\u0000)"}}},
		{"lone surrogate", `{"customer_id":"\ud800"}`, []Violation{{Pointer: "/customer_id", Reason: "must not contain a lone surrogate"}}},
		{"invalid UTF-8", "{\"customer_id\":\"\xff\"}", []Violation{{Pointer: "/customer_id", Reason: "must be valid UTF-8"}}},
		{"every violation at once", `{"items":[{"sku":"ABCDEFGHIJ","quantity":0},{"quantity":-5,"x":1},{"sku":"A","quantity":1.5}]}`, []Violation{
			{Pointer: "/items/0/sku", Reason: "must be at most 8 characters long"},
			{Pointer: "/items/0/quantity", Reason: "must be at least 1"},
			{Pointer: "/items/1/quantity", Reason: "must be at least 1"},
			{Pointer: "/items/1/x", Reason: "unknown member"},
			{Pointer: "/items/1/sku", Reason: "is required"},
			{Pointer: "/items/2/quantity", Reason: "must be an integer"},
		}},
		{"empty items", `{"items":[]}`, []Violation{{Pointer: "/items", Reason: "must have at least 1 items"}}},
		{"unique items", `{"items":[{"sku":"A","quantity":1},{"quantity":1.0,"sku":"A"}]}`, []Violation{{Pointer: "/items/1", Reason: "must not repeat an earlier item (uniqueItems)"}}},
		{"big integer", `{"items":[{"sku":"A","quantity":9007199254740993}]}`, []Violation{{Pointer: "/items/0/quantity", Reason: "is an integer beyond ±(2^53−1), which JSON cannot carry exactly; send it as a string"}}},
		{"2^53 itself", `{"items":[{"sku":"A","quantity":9007199254740992}]}`, []Violation{{Pointer: "/items/0/quantity", Reason: "is an integer beyond ±(2^53−1), which JSON cannot carry exactly; send it as a string"}}},
		{"wrong types", `{"customer_id":1,"items":{}}`, []Violation{{Pointer: "/customer_id", Reason: "must be a string"}, {Pointer: "/items", Reason: "must be an array"}}},
		{"null", `{"customer_id":null}`, []Violation{{Pointer: "/customer_id", Reason: "must not be null"}}},
		{"not an object", `[]`, []Violation{{Pointer: "", Reason: "must be an object"}}},
		{"syntax", `{"customer_id":"c42",}`, []Violation{{Pointer: "/customer_id", Reason: "invalid JSON at offset 21: trailing comma"}}},
		{"trailing", `{} {}`, []Violation{{Pointer: "", Reason: "invalid JSON at offset 3: text after the JSON value"}}},
		{"empty", ``, []Violation{{Pointer: "", Reason: "invalid JSON at offset 0: empty body, want a JSON value"}}},
		{"duplicate in an ignored member", `{"meta":{"a":1,"a":2}}`, []Violation{{Pointer: "/meta/a", Reason: "member given more than once"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, got := decodeOrder(tt.body)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if tt.want == nil && v.Customer == "evil" {
				t.Errorf("customer_id = evil")
			}
		})
	}
}

func TestManyMembersDuplicate(t *testing.T) {
	body := `{"a0":0,"a1":1,"a2":2,"a3":3,"a4":4,"a5":5,"a6":6,"a7":7,"a8":8,"a9":9,"b0":0,"b1":1,"b2":2,"b3":3,"b4":4,"b5":5,"b6":6,"b7":7,"a3":3}`
	_, got := decodeOrder(body)
	if diff := cmp.Diff([]Violation{{Pointer: "/a3", Reason: "member given more than once"}}, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		f   Format
		ok  []string
		bad []string
	}{
		{FormatDate, []string{"2024-05-01"}, []string{"2024-5-1", "2024-02-30", "x"}},
		{FormatUUID, []string{"3e4666bf-d5e5-4aa7-b8ce-cefe41c7568a"}, []string{"3e4666bf-d5e5-4aa7-b8ce-cefe41c7568", "3e4666bfxd5e5-4aa7-b8ce-cefe41c7568a"}},
		{FormatEmail, []string{"ada@example.com"}, []string{"Ada <ada@example.com>", "ada"}},
		{FormatURI, []string{"https://example.com/x", "urn:isbn:1"}, []string{"/relative", "::"}},
		{FormatDateTime, []string{"2024-05-01T12:00:00Z", "2024-05-01T12:00:00.5+02:00"}, []string{"2024-05-01 12:00:00Z", "2024-05-01T12:00:00"}},
	}
	for _, tt := range tests {
		for _, s := range append(tt.ok, tt.bad...) {
			d := New([]byte(`""`))
			_ = d.String()
			d.CheckFormat(s, tt.f)
			err := d.Finish()
			if want := !contains(tt.ok, s); (err != nil) != want {
				t.Errorf("format %d %q: err = %v, want error %v", tt.f, s, err, want)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestNumericChecks(t *testing.T) {
	d := New([]byte(`0`))
	d.Float()
	d.Minimum(0, 0, true)
	d.Maximum(5, 5, true)
	d.MultipleOf(0.3, 0.1)
	d.MultipleOf(7, 2)
	d.MinLength("äö", 3)
	d.MaxLength("äöü", 2)
	err := d.Finish()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	want := []Violation{{Pointer: "", Reason: "must be greater than 0"}, {Pointer: "", Reason: "must be less than 5"}, {Pointer: "", Reason: "must be a multiple of 2"},
		{Pointer: "", Reason: "must be at least 3 characters long"}, {Pointer: "", Reason: "must be at most 2 characters long"}}
	if diff := cmp.Diff(want, e.Violations); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParams(t *testing.T) {
	d := New(nil)
	if _, ok := d.Param("path", "order-id", "", 0, true); ok {
		t.Error("a missing parameter to check")
	}
	if _, ok := d.Param("path", "shop", "", 1, true); ok {
		t.Error("an empty path parameter to check")
	}
	if s, ok := d.Param("query", "limit", "500", 1, false); ok {
		d.Maximum(float64(d.ParamInt(s, -MaxExactInt, MaxExactInt)), 100, false)
	}
	if s, ok := d.Param("query", "ratio", "x", 1, false); ok {
		d.Minimum(d.ParamFloat(s), 0, false)
	}
	if _, ok := d.Param("header", "X-Name", "a\x00", 1, false); ok {
		t.Error("NUL in a header to check")
	}
	if _, ok := d.Param("query", "page", "1", 2, false); ok {
		t.Error("a parameter sent twice to check")
	}
	d.EndParams()
	err := d.Finish()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v", err)
	}
	want := []Violation{
		{In: "path", Parameter: "order-id", Reason: "is required"},
		{In: "path", Parameter: "shop", Reason: "is required"},
		{In: "query", Parameter: "limit", Reason: "must be at most 100"},
		{In: "query", Parameter: "ratio", Reason: "must be a number"},
		{In: "header", Parameter: "X-Name", Reason: "must not contain NUL"},
		{In: "query", Parameter: "page", Reason: "is sent 2 times: it takes one value, send it once"},
		{Reason: "invalid JSON at offset 0: empty body, want a JSON value"},
	}
	if diff := cmp.Diff(want, e.Violations); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(e.Violations[:1])
	if string(b) != `[{"in":"path","parameter":"order-id","reason":"is required"}]` {
		t.Errorf("JSON %s", b)
	}
}
