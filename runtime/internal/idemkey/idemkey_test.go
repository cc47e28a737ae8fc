package idemkey_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`"8e03978e-40d5-43e8-bc93-6894a57f9324"`, "8e03978e-40d5-43e8-bc93-6894a57f9324", true},
		{`8e03978e-40d5-43e8-bc93-6894a57f9324`, "8e03978e-40d5-43e8-bc93-6894a57f9324", true},
		{` "spaced"	`, "spaced", true},
		{`"with space"`, "with space", true},
		{`"esc\"aped\\"`, `esc"aped\`, true},
		{`key_123:/+=`, "key_123:/+=", true},
		{``, "", false},
		{`""`, "", false},
		{`"unterminated`, "", false},
		{`"trailing" x`, "", false},
		{`"bad\escape"`, "", false},
		{`"tab	inside"`, "", false},
		{"\"caf\u00e9\"", "", false},
		{`bare with space`, "", false},
		{`bare"quote`, "", false},
		{`bare\backslash`, "", false},
		{"caf\u00e9", "", false},
		{`"` + strings.Repeat("k", 40) + `"`, strings.Repeat("k", 40), true},
		{strings.Repeat("k", 41), "", false},
	} {
		got, err := idemkey.Parse(tc.in, 40)
		if tc.ok {
			if err != nil || got != tc.want {
				t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, idemkey.ErrMalformed) {
			t.Errorf("Parse(%q) = %q, %v; want ErrMalformed", tc.in, got, err)
		}
	}
}

func TestHashIsKeyedAndStable(t *testing.T) {
	a := idemkey.Hash([]byte("secret"), "tenant-a", "k1")
	if len(a) != 16 {
		t.Fatalf("Hash is %q, want 16 hex digits", a)
	}
	if b := idemkey.Hash([]byte("secret"), "tenant-a", "k1"); a != b {
		t.Errorf("Hash is not stable: %s, %s", a, b)
	}
	for _, other := range []string{
		idemkey.Hash([]byte("other"), "tenant-a", "k1"),
		idemkey.Hash([]byte("secret"), "tenant-b", "k1"),
		idemkey.Hash([]byte("secret"), "tenant-ak", "1"),
	} {
		if other == a {
			t.Errorf("Hash %s does not depend on the secret, the scope and the key apart", a)
		}
	}
}
