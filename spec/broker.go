package spec

import (
	"fmt"

	"go.yaml.in/yaml/v4"
)

// Broker names the broker a consumer takes its messages from, when they
// do not arrive over HTTP: a webhooks entry whose x-idempotency block
// names a broker declares a broker consumer, with the model of a webhook's
// consumer but no route and no signature.
type Broker struct {
	// Pos is where the broker object starts.
	Pos  Position
	Kind Field[BrokerKind]
	// Channel is what it consumes: a JetStream subject, a RabbitMQ queue
	// or a Kafka topic, as Kind.ChannelField says.
	Channel Field[string]
}

// BrokerKind is a broker with an adapter in runtime/idembroker.
type BrokerKind string

// The brokers a consumer can be declared on.
const (
	BrokerJetStream BrokerKind = "jetstream"
	BrokerRabbitMQ  BrokerKind = "rabbitmq"
	BrokerKafka     BrokerKind = "kafka"
)

// ChannelField is the field of a broker object that names what a broker
// of kind k consumes: subject, queue or topic.
func (k BrokerKind) ChannelField() string {
	switch k {
	case BrokerRabbitMQ:
		return "queue"
	case BrokerKafka:
		return "topic"
	}
	return "subject"
}

// Title is the broker's name as its makers write it.
func (k BrokerKind) Title() string {
	switch k {
	case BrokerRabbitMQ:
		return "RabbitMQ"
	case BrokerKafka:
		return "Kafka"
	}
	return "JetStream"
}

// KeyInMessageID says a broker consumer's key is the broker's id of the
// message (JetStream's Nats-Msg-Id, RabbitMQ's message-id, Kafka's
// partition and offset). It is the default of a broker consumer and
// never written: key.in is header or body.
const KeyInMessageID KeyLocation = "message-id"

// brokerFields are the fields of a broker object.
var brokerFields = []string{"kind", "subject", "queue", "topic"}

// broker decodes a broker object: its kind, and the one field naming what
// it consumes that the kind takes.
func (d *decoder) broker(n *yaml.Node, path string) *Broker {
	if n == nil || n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want an object such as {kind: jetstream, subject: orders.created}, got %s", kindName(n))
		return nil
	}
	b := &Broker{Pos: d.pos(n)}
	channels := map[string]Field[string]{}
	d.fields(n, path, brokerFields, func(_, v *yaml.Node, name, fpath string) {
		if name == "kind" {
			b.Kind = enum(d, v, fpath, BrokerJetStream, BrokerRabbitMQ, BrokerKafka)
			return
		}
		channels[name] = d.nonEmptyString(v, fpath)
	})
	if !b.Kind.Set {
		if _, v := mappingEntry(n, "kind"); v == nil {
			d.errorf(n, path+".kind", "a broker needs a kind: jetstream, rabbitmq or kafka")
		}
		return nil
	}
	want := b.Kind.Value.ChannelField()
	for _, name := range brokerFields[1:] {
		_, v := mappingEntry(n, name)
		if v != nil && name != want {
			d.errorf(v, path+"."+name, "a %s broker names a %s, not a %s: write %s: instead", b.Kind.Value, want, name, want)
		}
	}
	f, ok := channels[want]
	if !ok {
		if _, v := mappingEntry(n, want); v == nil {
			d.errorf(n, path+"."+want, "a %s broker needs a %s: the %s the consumer takes its messages from", b.Kind.Value, want, want)
		}
		return nil
	}
	if !f.Set {
		return nil
	}
	b.Channel = f
	return b
}

// mergeBroker makes c, the contract of a webhooks entry whose block op
// names a broker, a broker consumer's: it has no sender (no signature,
// no sender's retry schedule) and no header, so its key is a body field
// of its own block or the broker's message id. path names the block in
// errors.
func mergeBroker(d *decoder, c *Contract, op *block, path string) {
	at := op.pos
	c.Consumer.Broker = op.consumer.Broker
	if s := op.consumer.Sender; s.Set {
		d.errs = append(d.errs, &Error{Pos: s.Pos, Path: path + ".sender",
			Msg: "a broker consumer has no sender whose signature or retry schedule to check: remove sender (max-attempts bounds the broker's redeliveries)"})
	}
	c.Consumer.Sender = Field[Sender]{Pos: at}
	if k := op.c.Key; k.In.Value == KeyInBody {
		c.Key.In, c.Key.Name = k.In, k.Name
		return
	} else if k.In.Set || k.Name.Set {
		at := k.In.Pos
		if !k.In.Set {
			at = k.Name.Pos
		}
		d.errs = append(d.errs, &Error{Pos: at, Path: path + ".key",
			Msg: fmt.Sprintf("a message from %s has no header the consumer reads: key it by a body field (key: {in: body, name: /payment_id}), or leave key.in and key.name out to key it by the broker's message id",
				c.Consumer.Broker.Kind.Value.Title())})
	}
	c.Key.In = Field[KeyLocation]{Value: KeyInMessageID, Pos: at}
	c.Key.Name = Field[string]{Pos: at}
}

// brokerPos is where b starts; zero when b is nil.
func brokerPos(b *Broker) Position {
	if b == nil {
		return Position{}
	}
	return b.Pos
}
