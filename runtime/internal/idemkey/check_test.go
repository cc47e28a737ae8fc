package idemkey_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/internal/idemkey"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want string // in the error; "" for none
	}{
		{"msg-1", ""},
		{"caf\u00e9 \u00fcber", ""},
		{"\ufffd as such", ""},
		{strings.Repeat("k", 16), ""},
		{"", "idem: idempotency key malformed: message-id is empty"},
		{strings.Repeat("k", 17), "message-id of 17 bytes, at most 16 allowed"},
		{"a\x00b", "message-id holds the control character U+0000 at byte 1"},
		{"tab\tin", "control character U+0009 at byte 3"},
		{"del\x7f", "control character U+007F at byte 3"},
		{"c1\u0085", "control character U+0085 at byte 2"},
		{"bad\xffutf8", "message-id is not UTF-8 at byte 3"},
		{"\xc3", "not UTF-8 at byte 0"},
	} {
		err := idemkey.Check("message-id", tc.key, 16)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.key, err)
		case tc.want != "" && (!errors.Is(err, idemkey.ErrMalformed) || !strings.Contains(fmtErr(err), tc.want)):
			t.Errorf("Check(%q) = %v, want ErrMalformed saying %q", tc.key, err, tc.want)
		}
	}
	if err := idemkey.Check("message-id", strings.Repeat("k", 1000), 0); err != nil {
		t.Errorf("maxLen 0: %v, want no upper bound", err)
	}
}

// fmtErr is err's text, "" for nil.
func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
