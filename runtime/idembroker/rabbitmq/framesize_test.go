package rabbitmq

import (
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// Each field value's size is AMQP 0-9-1's encoding as amqp091-go writes
// it (write.go's writeField): a type octet, then a fixed width or a
// 4-byte length and the bytes; an array and a table hold their elements'
// encodings after their length. The expected sizes are counted by hand
// from that encoding, not from fieldSize.
func TestFieldSizeOfEveryType(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value any
		want  int
	}{
		{"bool", true, 1 + 1},
		{"byte", byte(7), 1 + 1},
		{"int8", int8(-7), 1 + 1},
		{"int16", int16(-7), 1 + 2},
		{"uint16", uint16(7), 1 + 2},
		{"int", 7, 1 + 4},
		{"int32", int32(7), 1 + 4},
		{"uint32", uint32(7), 1 + 4},
		{"float32", float32(1.5), 1 + 4},
		{"int64", int64(7), 1 + 8},
		{"float64", 1.5, 1 + 8},
		{"time", time.Unix(1700000000, 0), 1 + 8},
		{"decimal", amqp.Decimal{Scale: 2, Value: 12345}, 1 + 1 + 4},
		{"string", "héllo", 1 + 4 + 6},
		{"bytes", []byte{1, 2, 3}, 1 + 4 + 3},
		{"nil", nil, 1},
		{"array", []any{"ab", int32(1), []any{true}}, 1 + 4 + (1 + 4 + 2) + (1 + 4) + (1 + 4 + 2)},
		{"table", amqp.Table{"k": "v", "n": int64(1)}, 1 + 4 + (1 + 1 + 1 + 4 + 1) + (1 + 1 + 1 + 8)},
		{"unsupported", struct{}{}, 1},
	} {
		if got := fieldSize(tc.value); got != tc.want {
			t.Errorf("%s: fieldSize(%#v) = %d, want %d", tc.name, tc.value, got, tc.want)
		}
	}
}

// A content header frame is 8 bytes of frame around a 14-byte payload
// head (class, weight, body size, property flags) and the properties
// present: a short string is its length octet and bytes, the delivery
// mode and priority an octet each, the timestamp 8 bytes, the headers a
// table; properties left zero take nothing.
func TestHeaderFrameSize(t *testing.T) {
	if got := headerFrameSize(amqp.Publishing{Body: []byte("the body is not in the header frame")}); got != 8+14 {
		t.Errorf("no properties: %d bytes, want %d", got, 8+14)
	}
	p := amqp.Publishing{
		ContentType: "application/json", ContentEncoding: "gzip", CorrelationId: "c", ReplyTo: "r",
		Expiration: "60000", MessageId: "id-1", Type: "t", UserId: "guest", AppId: "app",
		DeliveryMode: amqp.Persistent, Priority: 3, Timestamp: time.Unix(1700000000, 0),
		Headers: amqp.Table{"x-reason": "why"},
	}
	want := 8 + 14 +
		(1 + 16) + (1 + 4) + (1 + 1) + (1 + 1) + (1 + 5) + (1 + 4) + (1 + 1) + (1 + 5) + (1 + 3) + // short strings
		1 + 1 + 8 + // delivery mode, priority, timestamp
		4 + (1 + 8 + 1 + 4 + 3) // the headers table
	if got := headerFrameSize(p); got != want {
		t.Errorf("every property: %d bytes, want %d", got, want)
	}
}
