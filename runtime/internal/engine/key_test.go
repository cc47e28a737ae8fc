package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/engine"
)

func TestParseKey(t *testing.T) {
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
		got, err := engine.ParseKey(tc.in, 40)
		if tc.ok {
			if err != nil || got != tc.want {
				t.Errorf("ParseKey(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, engine.ErrKeyMalformed) {
			t.Errorf("ParseKey(%q) = %q, %v; want ErrKeyMalformed", tc.in, got, err)
		}
	}
}
