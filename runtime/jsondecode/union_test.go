package jsondecode

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// payment is what a generated decoder of {"payment": oneOf [card, iban
// string of 15–34 characters]} (or anyOf, or discriminated by "type")
// looks like, card being {"type": string, "number": string required,
// "cvc": string maxLength 4}.
type payment struct {
	Payment json.RawMessage
}

func card(d *Decoder) {
	if !d.BeginObject() {
		return
	}
	has := false
	for d.Member() {
		switch string(d.Key()) {
		case "number":
			has = true
			_ = d.String()
		case "cvc":
			cvc := d.String()
			d.MaxLength(cvc, 4)
		default:
			d.Skip()
		}
	}
	if !has {
		d.Missing("number")
	}
}

func iban(d *Decoder) {
	s := d.String()
	d.MinLength(s, 15)
	d.MaxLength(s, 34)
}

// anyObject is a branch every object matches.
func anyObject(d *Decoder) {
	if d.BeginObject() {
		for d.Member() {
			d.Skip()
		}
	}
}

func decodePayment(body string, member func(*Decoder) json.RawMessage) (payment, []Violation) {
	var v payment
	d := New([]byte(body))
	if d.BeginObject() {
		for d.Member() {
			switch string(d.Key()) {
			case "payment":
				v.Payment = member(d)
			default:
				d.Skip()
			}
		}
	}
	var e *Error
	if errors.As(d.Finish(), &e) {
		return v, e.Violations
	}
	return v, nil
}

func TestUnion(t *testing.T) {
	oneOf := func(d *Decoder) json.RawMessage { return d.Union(true, card, iban) }
	anyOf := func(d *Decoder) json.RawMessage { return d.Union(false, card, anyObject) }
	overlapping := func(d *Decoder) json.RawMessage { return d.Union(true, card, anyObject) }
	tests := []struct {
		name   string
		body   string
		member func(*Decoder) json.RawMessage
		want   []Violation
	}{
		{"oneOf first branch", `{"payment":{"number":"4242","cvc":"123"}}`, oneOf, nil},
		{"oneOf second branch", `{"payment":"DE89370400440532013000"}`, oneOf, nil},
		{"oneOf none", `{"payment":{"cvc":"12345"}}`, oneOf, []Violation{{Pointer: "/payment",
			Reason: "must match one of the 2 oneOf branches, and matches none (branch 1: /payment/cvc: must be at most 4 characters long; branch 2: /payment: must be a string)"}}},
		{"oneOf short string", `{"payment":"DE89"}`, oneOf, []Violation{{Pointer: "/payment",
			Reason: "must match one of the 2 oneOf branches, and matches none (branch 1: /payment: must be an object; branch 2: /payment: must be at least 15 characters long)"}}},
		{"oneOf null", `{"payment":null}`, oneOf, []Violation{{Pointer: "/payment",
			Reason: "must match one of the 2 oneOf branches, and matches none (branch 1: /payment: must not be null; branch 2: /payment: must not be null)"}}},
		{"oneOf two branches", `{"payment":{"number":"4242"}}`, overlapping, []Violation{{Pointer: "/payment",
			Reason: "must match exactly one of the 2 oneOf branches, and matches 2"}}},
		{"anyOf two branches", `{"payment":{"number":"4242"}}`, anyOf, nil},
		{"anyOf one branch", `{"payment":{"cvc":"1"}}`, anyOf, nil},
		{"anyOf none", `{"payment":7}`, anyOf, []Violation{{Pointer: "/payment",
			Reason: "must match one of the 2 anyOf branches, and matches none (branch 1: /payment: must be an object; branch 2: /payment: must be an object)"}}},
		{"strictness first", `{"payment":{"number":"1","number":"2"}}`, oneOf, []Violation{{Pointer: "/payment/number", Reason: "member given more than once"}}},
		{"members after the union", `{"payment":"DE89370400440532013000","x":{"a":1,"a":2}}`, oneOf, []Violation{{Pointer: "/x/a", Reason: "member given more than once"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, got := decodePayment(tt.body, tt.member)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			var whole map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.body), &whole); err == nil && string(v.Payment) != string(whole["payment"]) {
				t.Errorf("payment = %s, want the text as sent, %s", v.Payment, whole["payment"])
			}
		})
	}
}

func TestDiscriminated(t *testing.T) {
	member := func(d *Decoder) json.RawMessage {
		return d.Discriminated("type", []string{"card", "iban"}, card, func(d *Decoder) {
			if d.BeginObject() {
				has := false
				for d.Member() {
					switch string(d.Key()) {
					case "iban":
						has = true
						iban(d)
					default:
						d.Skip()
					}
				}
				if !has {
					d.Missing("iban")
				}
			}
		})
	}
	tests := []struct {
		name string
		body string
		want []Violation
	}{
		{"card", `{"payment":{"type":"card","number":"4242"}}`, nil},
		{"iban", `{"payment":{"iban":"DE89370400440532013000","type":"iban"}}`, nil},
		{"the chosen branch's violations", `{"payment":{"type":"card","cvc":"12345"}}`, []Violation{
			{Pointer: "/payment/cvc", Reason: "must be at most 4 characters long"},
			{Pointer: "/payment/number", Reason: "is required"},
		}},
		{"another branch's shape", `{"payment":{"type":"iban","number":"4242"}}`, []Violation{{Pointer: "/payment/iban", Reason: "is required"}}},
		{"unknown discriminator", `{"payment":{"type":"cash"}}`, []Violation{{Pointer: "/payment/type", Reason: `must be one of "card", "iban": it names the branch of the object`}}},
		{"missing discriminator", `{"payment":{"number":"4242"}}`, []Violation{{Pointer: "/payment/type", Reason: "is required"}}},
		{"discriminator not a string", `{"payment":{"type":1}}`, []Violation{{Pointer: "/payment/type", Reason: "must be a string"}}},
		{"not an object", `{"payment":"card"}`, []Violation{{Pointer: "/payment", Reason: "must be an object"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := decodePayment(tt.body, member)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNestedUnion checks a union inside a branch of another: its verdict
// decides the outer branch's, and the outer union alone reports.
func TestNestedUnion(t *testing.T) {
	// wrapper is {"payment": oneOf [card, iban]} as a branch object.
	wrapper := func(d *Decoder) {
		if !d.BeginObject() {
			return
		}
		has := false
		for d.Member() {
			switch string(d.Key()) {
			case "payment":
				has = true
				d.Union(true, card, iban)
			default:
				d.Skip()
			}
		}
		if !has {
			d.Missing("payment")
		}
	}
	member := func(d *Decoder) json.RawMessage { return d.Union(true, wrapper, iban) }
	tests := []struct {
		name string
		body string
		want []Violation
	}{
		{"inner branch matches", `{"payment":{"payment":{"number":"4242"}}}`, nil},
		{"outer scalar branch", `{"payment":"DE89370400440532013000"}`, nil},
		{"inner union matches none", `{"payment":{"payment":{"cvc":"12345"}}}`, []Violation{{Pointer: "/payment",
			Reason: "must match one of the 2 oneOf branches, and matches none (branch 1: /payment/payment: must match one of the 2 oneOf branches, and matches none " +
				"(branch 1: /payment/payment/cvc: must be at most 4 characters long; branch 2: /payment/payment: must be a string); branch 2: /payment: must be a string)"}}},
		{"inner duplicate", `{"payment":{"payment":{"number":"1","number":"2"}}}`, []Violation{{Pointer: "/payment/payment/number", Reason: "member given more than once"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := decodePayment(tt.body, member)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}
