package idemops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Redacted replaces the value of every JSON field Redact hides.
const Redacted = "[redacted]"

// secretWords are what a field's name, lowercased and without separators,
// contains when its value is a secret; secretNames are short names that
// are secrets only on their own (a pin, not a shipping address).
var (
	secretWords = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "authorization",
		"credential", "card", "cvv", "cvc", "privatekey", "iban", "accountnumber"}
	secretNames = []string{"pin", "ssn", "pan", "otp", "auth"}
)

// secretField reports whether a JSON field of this name holds a secret.
func secretField(name string) bool {
	n := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(name))
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, w := range secretNames {
		if n == w {
			return true
		}
	}
	return false
}

// Redact returns what support may see of a payload or body: a JSON
// document with the value of every field named like a secret (password,
// token, secret, card, authorization, api_key, cvv, iban, pin and the
// like, at any depth) replaced by Redacted, its fields in name order; ""
// for an empty one; and for anything that is not JSON only its size,
// since its secrets cannot be told apart.
func Redact(doc []byte) string { return redactWith(doc, nil, nil) }

// Redact is the package's Redact that also hides the fields Config's
// SecretFields name: what c's lists and views show of a payload or body.
func (c *Client) Redact(doc []byte) string { return redactWith(doc, c.secrets, nil) }

// redactWith is Redact hiding also the fields named in extra and the
// string values in values (an idempotency key sent in the body).
func redactWith(doc []byte, extra, values map[string]bool) string {
	if len(bytes.TrimSpace(doc)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return fmt.Sprintf("(%d bytes, not JSON: not shown)", len(doc))
	}
	out, err := json.Marshal(redact(v, extra, values))
	if err != nil {
		return fmt.Sprintf("(%d bytes: not shown)", len(doc))
	}
	return string(out)
}

// redact replaces the secrets in a decoded JSON value: fields named like
// one, fields named in extra, and string values in values.
func redact(v any, extra, values map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if secretField(k) || extra[k] {
				v[k] = Redacted
			} else {
				v[k] = redact(x, extra, values)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = redact(x, extra, values)
		}
	case string:
		if values[v] {
			return hiddenKey
		}
	}
	return v
}
