package rabbitmq

import (
	"context"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/idemgen/idemgen/runtime/idem"
)

// A reason becomes header text: kept as it is when it is valid UTF-8
// without control characters and short enough; otherwise its invalid
// bytes and control characters become U+FFFD, and it is cut at a
// character's boundary to MaxReasonLength bytes, ending with "…".
func TestHeaderText(t *testing.T) {
	long := strings.Repeat("é", MaxReasonLength) // 2 bytes each
	for _, tc := range []struct{ in, want string }{
		{"the message id is empty", "the message id is empty"},
		{"bad\x01id\xff\xfe", "bad\uFFFDid\uFFFD\uFFFD"},
		{"tab\tand\u0085", "tab\uFFFDand\uFFFD"},
		{long, long[:MaxReasonLength-4] + "…"},
		{"x" + long, "x" + long[:MaxReasonLength-4] + "…"},
		{strings.Repeat("\xff", 1<<20), strings.Repeat("\uFFFD", (MaxReasonLength-3)/3) + "…"},
	} {
		if got := headerText(tc.in); got != tc.want {
			t.Errorf("headerText(%.40q…) = %.40q… (%d bytes), want %.40q… (%d bytes)", tc.in, got, len(got), tc.want, len(tc.want))
		}
	}
}

// Whatever the reason holds, its header text is valid UTF-8 without
// control characters, at most MaxReasonLength bytes, and the reason itself
// when that already is.
func FuzzHeaderText(f *testing.F) {
	for _, s := range []string{"", "ok", "bad\x00\x01\x7f\xc2\x85", "\xe2\x82", strings.Repeat("€", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := headerText(s)
		if !utf8.ValidString(got) || len(got) > MaxReasonLength || strings.ContainsFunc(got, unicode.IsControl) {
			t.Fatalf("headerText(%q) = %q", s, got)
		}
		if utf8.ValidString(s) && len(s) <= MaxReasonLength && !strings.ContainsFunc(s, unicode.IsControl) && got != s {
			t.Fatalf("headerText(%q) = %q, want it unchanged", s, got)
		}
	})
}

// A DeadLetter that would route back to the queue consumed, through the
// default exchange, is refused before Run dials.
func TestRunRefusesADeadLetterToItsOwnQueue(t *testing.T) {
	dial := func() (*amqp.Connection, error) {
		t.Fatal("Run dialed")
		return nil, nil
	}
	for _, dl := range []DeadLetter{{}, {RoutingKey: "orders"}} {
		err := Run(t.Context(), Config{Dial: dial, Queue: "orders", Deliverer: refuser{}, DeadLetter: &dl})
		if err == nil || !strings.Contains(err.Error(), "routes to the queue consumed") {
			t.Errorf("DeadLetter %+v: Run returned %v, want it refused", dl, err)
		}
	}
}

// refuser is a Deliverer no message reaches.
type refuser struct{}

func (refuser) Deliver(context.Context, idem.Message) (idem.DeliveryResult, error) {
	return idem.DeliveryResult{}, idem.ErrInvalidMessage
}
