package rabbitmq

import (
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// headerFrameSize is the size in bytes of p's content header frame as
// amqp091-go encodes it: the frame's 8 bytes around its payload, the
// payload's 14 bytes before the properties, and the properties. The whole
// frame must fit in the connection's frame_max: the broker closes the
// connection on a larger one, and amqp091-go does not check it.
func headerFrameSize(p amqp.Publishing) int {
	n := 8 + 14
	for _, s := range []string{p.ContentType, p.ContentEncoding, p.CorrelationId, p.ReplyTo, p.Expiration,
		p.MessageId, p.Type, p.UserId, p.AppId} {
		if s != "" {
			n += 1 + len(s)
		}
	}
	if len(p.Headers) > 0 {
		n += tableSize(p.Headers)
	}
	if p.DeliveryMode != 0 {
		n++
	}
	if p.Priority != 0 {
		n++
	}
	if !p.Timestamp.IsZero() {
		n += 8
	}
	return n
}

// tableSize is the size in bytes of t encoded as a field table.
func tableSize(t amqp.Table) int {
	n := 4
	for k, v := range t {
		n += 1 + len(k) + fieldSize(v)
	}
	return n
}

// fieldSize is the size in bytes of v encoded as a field value, with its
// type octet; a value amqp091-go refuses counts as 1, as the publish fails
// on it before anything is sent.
func fieldSize(v any) int {
	switch v := v.(type) {
	case bool, byte, int8:
		return 2
	case int16, uint16:
		return 3
	case int, int32, uint32, float32:
		return 5
	case int64, float64, time.Time:
		return 9
	case amqp.Decimal:
		return 6
	case string:
		return 5 + len(v)
	case []byte:
		return 5 + len(v)
	case []any:
		n := 5
		for _, e := range v {
			n += fieldSize(e)
		}
		return n
	case amqp.Table:
		return 1 + tableSize(v)
	default:
		return 1
	}
}
