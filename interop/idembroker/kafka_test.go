package idembroker_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemgen/idemgen/runtime/idembroker"
	"github.com/idemgen/idemgen/runtime/idembroker/brokertest"
	"github.com/idemgen/idemgen/runtime/idembroker/kafka"
)

// The Kafka adapter passes the suite on franz-go's in-process kfake
// cluster (no Kafka server is installable here), which keeps no data
// across a restart: the restart case is skipped.
func TestKafkaAdapter(t *testing.T) {
	brokertest.Run(t, newKafkaHarness)
}

// The topic, its partitions and the consumers' group.
const (
	kafkaTopic      = "events"
	kafkaPartitions = 3
	kafkaGroup      = "idem"
)

// kafkaHarness runs a kfake cluster of its own.
type kafkaHarness struct {
	seeds []string
	cl    *kgo.Client
}

func newKafkaHarness(t *testing.T) brokertest.Harness {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(kafkaPartitions, kafkaTopic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	h := &kafkaHarness{seeds: c.ListenAddrs()}
	h.cl, err = kgo.NewClient(kgo.SeedBrokers(h.seeds...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.cl.Close)
	return h
}

func (h *kafkaHarness) Features() brokertest.Features { return brokertest.Features{Ordered: true} }

func (h *kafkaHarness) Source() string { return kafkaTopic }

// Publish keys a record by its OrderKey, or by its id without one, which
// spreads the messages over the partitions.
func (h *kafkaHarness) Publish(t testing.TB, m brokertest.Message) {
	t.Helper()
	key := m.OrderKey
	if key == "" {
		key = m.ID
	}
	r := &kgo.Record{Topic: kafkaTopic, Key: []byte(key), Value: m.Body,
		Headers: []kgo.RecordHeader{{Key: kafka.DefaultIDHeader, Value: []byte(m.ID)}}}
	if err := h.cl.ProduceSync(t.Context(), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// Start's consumer crashes by the end of its context: the adapter commits
// only the offsets of the records it acknowledged, so the record of a
// crashed delivery is consumed again, as after a crash.
func (h *kafkaHarness) Start(t testing.TB, d idembroker.Deliverer) *brokertest.Consumer {
	t.Helper()
	return brokertest.Go(func(ctx context.Context) error {
		return kafka.Run(ctx, kafka.Config{Deliverer: d, RetryDelay: retryDelay, OnError: func(err error) { t.Log(err) },
			Options: []kgo.Opt{kgo.SeedBrokers(h.seeds...), kgo.ConsumerGroup(kafkaGroup), kgo.ConsumeTopics(kafkaTopic),
				kgo.FetchMaxWait(100 * time.Millisecond)}})
	}, nil)
}

func (h *kafkaHarness) RestartBroker(testing.TB) {}

// Unacked counts the records past the group's committed offsets.
func (h *kafkaHarness) Unacked(t testing.TB) int {
	t.Helper()
	adm := kadm.NewClient(h.cl)
	committed, err := adm.FetchOffsets(t.Context(), kafkaGroup)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := adm.ListEndOffsets(t.Context(), kafkaTopic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ends.Each(func(end kadm.ListedOffset) {
		at := int64(0)
		if c, ok := committed.Lookup(end.Topic, end.Partition); ok && c.Err == nil {
			at = c.At
		}
		n += int(end.Offset - at)
	})
	return n
}
