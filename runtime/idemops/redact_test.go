package idemops_test

import (
	"testing"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// Redact hides the values of fields named like secrets at any depth,
// keeps every other field, and shows nothing of a payload that is not
// JSON but its size.
func TestRedactHidesSecretNamedFields(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, ``},
		{`{"amount":1250,"currency":"EUR","card_number":"4242424242424242","cvc":"123"}`,
			`{"amount":1250,"card_number":"[redacted]","currency":"EUR","cvc":"[redacted]"}`},
		{`{"refund":{"id":"re_1","Authorization":"Bearer sk_live","api-key":"k","items":[{"password":"p","sku":"S"}]}}`,
			`{"refund":{"Authorization":"[redacted]","api-key":"[redacted]","id":"re_1","items":[{"password":"[redacted]","sku":"S"}]}}`},
		{`{"shipping_address":"1 Main St","pin":"1234","client_secret":{"a":1},"accessToken":"t"}`,
			`{"accessToken":"[redacted]","client_secret":"[redacted]","pin":"[redacted]","shipping_address":"1 Main St"}`},
		{`{"big":12345678901234567890}`, `{"big":12345678901234567890}`},
		{`password=hunter2`, `(16 bytes, not JSON: not shown)`},
		{`{"a":1} {"password":"x"}`, `(24 bytes, not JSON: not shown)`},
	} {
		if got := idemops.Redact([]byte(tc.in)); got != tc.want {
			t.Errorf("Redact(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// A Client hides the fields its SecretFields name too, at any depth, in
// what it redacts and in the effects' payloads it lists; the package's
// Redact does not know them.
func TestClientRedactsTheSpecsSecretFields(t *testing.T) {
	c, err := idemops.New(unreachable{}, idemops.Config{SecretFields: []string{"one_time_link", "recovery_phrase"}})
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(`{"address":"a@example.com","one_time_link":"https://x/l/1","nested":[{"recovery_phrase":"w1 w2","cvc":"1"}]}`)
	want := `{"address":"a@example.com","nested":[{"cvc":"[redacted]","recovery_phrase":"[redacted]"}],"one_time_link":"[redacted]"}`
	if got := c.Redact(in); got != want {
		t.Errorf("Client.Redact = %s, want %s", got, want)
	}
	if got := idemops.Redact(in); got == want {
		t.Errorf("the package's Redact hid the client's fields: %s", got)
	}
}
