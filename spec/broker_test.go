package spec

import (
	"testing"
	"time"
)

// A webhooks entry whose block names a broker is a broker consumer: its
// broker, no sender, and its key a body field or, when the block has
// none, the broker's message id; the other consumer fields as a
// webhook's.
func TestBrokerConsumerContract(t *testing.T) {
	doc := loadT(t, "../testdata/golden/broker-consumer/openapi.yaml")

	ledger := findOp(t, doc, "POST", "ledgerSettlement").Contract
	b := ledger.Consumer.Broker
	if b == nil || b.Kind.Value != BrokerJetStream || b.Channel.Value != "bank.settlements" || b.Pos.Line != 23 {
		t.Fatalf("ledgerSettlement's broker = %+v, want jetstream subject bank.settlements at line 23", b)
	}
	if ledger.Consumer.Sender.Set || ledger.Consumer.Source.Value != "bank" || ledger.Consumer.MaxAttempts.Value != 8 ||
		ledger.Retention.Value != 80*time.Hour {
		t.Errorf("ledgerSettlement's consumer = %+v, retention %s; want no sender, source bank, 8 attempts, 80h", *ledger.Consumer, ledger.Retention.Value)
	}
	if ledger.Key.In.Value != KeyInBody || ledger.Key.Name.Value != "/payment_id" {
		t.Errorf("ledgerSettlement's key = %s %q, want body /payment_id", ledger.Key.In.Value, ledger.Key.Name.Value)
	}

	audit := findOp(t, doc, "POST", "auditEvent").Contract
	if b := audit.Consumer.Broker; b == nil || b.Kind.Value != BrokerRabbitMQ || b.Channel.Value != "audit.events" {
		t.Fatalf("auditEvent's broker = %+v, want rabbitmq queue audit.events", b)
	}
	if audit.Key.In.Value != KeyInMessageID || audit.Key.In.Set || audit.Key.Name.Value != "" {
		t.Errorf("auditEvent's key = %+v %+v, want the broker's message id, not written", audit.Key.In, audit.Key.Name)
	}
	if audit.Consumer.Source.Value != "auditEvent" || audit.Consumer.MaxAttempts.Value != DefaultMaxAttempts {
		t.Errorf("auditEvent's consumer = %+v, want source auditEvent and %d attempts", *audit.Consumer, DefaultMaxAttempts)
	}
}

// Each broker kind names what it consumes by its own field.
func TestBrokerKindChannelField(t *testing.T) {
	for kind, want := range map[BrokerKind][2]string{
		BrokerJetStream: {"subject", "JetStream"},
		BrokerRabbitMQ:  {"queue", "RabbitMQ"},
		BrokerKafka:     {"topic", "Kafka"},
	} {
		if got := [2]string{kind.ChannelField(), kind.Title()}; got != want {
			t.Errorf("%s: %v, want %v", kind, got, want)
		}
	}
}
