package jsondecode

import (
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
		{"duplicate member", `{"customer_id":"c42","customer_id":"evil"}`, []Violation{{"/customer_id", "member given more than once"}}},
		{"escaped duplicate", `{"customer_id":"c42","customer\u005fid":"evil"}`, []Violation{{"/customer_id", "member given more than once"}}},
		{"NUL", `{"customer_id":"c\u0000x"}`, []Violation{{"/customer_id", "must not contain NUL (\\u0000)"}}},
		{"lone surrogate", `{"customer_id":"\ud800"}`, []Violation{{"/customer_id", "must not contain a lone surrogate"}}},
		{"invalid UTF-8", "{\"customer_id\":\"\xff\"}", []Violation{{"/customer_id", "must be valid UTF-8"}}},
		{"every violation at once", `{"items":[{"sku":"ABCDEFGHIJ","quantity":0},{"quantity":-5,"x":1},{"sku":"A","quantity":1.5}]}`, []Violation{
			{"/items/0/sku", "must be at most 8 characters long"},
			{"/items/0/quantity", "must be at least 1"},
			{"/items/1/quantity", "must be at least 1"},
			{"/items/1/x", "unknown member"},
			{"/items/1/sku", "is required"},
			{"/items/2/quantity", "must be an integer"},
		}},
		{"empty items", `{"items":[]}`, []Violation{{"/items", "must have at least 1 items"}}},
		{"unique items", `{"items":[{"sku":"A","quantity":1},{"quantity":1.0,"sku":"A"}]}`, []Violation{{"/items/1", "must not repeat an earlier item (uniqueItems)"}}},
		{"big integer", `{"items":[{"sku":"A","quantity":9007199254740993}]}`, []Violation{{"/items/0/quantity", "is an integer beyond ±(2^53−1), which JSON cannot carry exactly; send it as a string"}}},
		{"2^53 itself", `{"items":[{"sku":"A","quantity":9007199254740992}]}`, []Violation{{"/items/0/quantity", "is an integer beyond ±(2^53−1), which JSON cannot carry exactly; send it as a string"}}},
		{"wrong types", `{"customer_id":1,"items":{}}`, []Violation{{"/customer_id", "must be a string"}, {"/items", "must be an array"}}},
		{"null", `{"customer_id":null}`, []Violation{{"/customer_id", "must not be null"}}},
		{"not an object", `[]`, []Violation{{"", "must be an object"}}},
		{"syntax", `{"customer_id":"c42",}`, []Violation{{"/customer_id", "invalid JSON at offset 21: trailing comma"}}},
		{"trailing", `{} {}`, []Violation{{"", "invalid JSON at offset 3: text after the JSON value"}}},
		{"empty", ``, []Violation{{"", "invalid JSON at offset 0: empty body, want a JSON value"}}},
		{"duplicate in an ignored member", `{"meta":{"a":1,"a":2}}`, []Violation{{"/meta/a", "member given more than once"}}},
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
	if diff := cmp.Diff([]Violation{{"/a3", "member given more than once"}}, got); diff != "" {
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
	want := []Violation{{"", "must be greater than 0"}, {"", "must be less than 5"}, {"", "must be a multiple of 2"},
		{"", "must be at least 3 characters long"}, {"", "must be at most 2 characters long"}}
	if diff := cmp.Diff(want, e.Violations); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
