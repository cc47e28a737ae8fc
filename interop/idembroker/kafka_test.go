package idembroker_test

import (
	"context"
	"net"
	"strconv"
	"sync"
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
// cluster (no Kafka server is installable here), which writes its log,
// groups and committed offsets to a directory and reloads them when
// started again on it: the harness restarts it on the same port.
func TestKafkaAdapter(t *testing.T) {
	brokertest.Run(t, newKafkaHarness)
}

// The topic, its partitions and the consumers' group.
const (
	kafkaTopic      = "events"
	kafkaPartitions = 3
	kafkaGroup      = "idem"
)

// kafkaHarness runs a kfake cluster of its own, one broker persisting to
// dir.
type kafkaHarness struct {
	dir   string
	seeds []string
	cl    *kgo.Client

	mu sync.Mutex
	c  *kfake.Cluster
}

func newKafkaHarness(t *testing.T) brokertest.Harness {
	h := &kafkaHarness{dir: t.TempDir()}
	h.c = h.start(t, kfake.SeedTopics(kafkaPartitions, kafkaTopic))
	t.Cleanup(func() { h.cluster().Close() })
	h.seeds = h.c.ListenAddrs()
	h.cl = h.client(t)
	return h
}

// client is a client of the harness's own, closed when t ends.
func (h *kafkaHarness) client(t testing.TB) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(h.seeds...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// start starts a one-broker cluster on h.dir, reloading what is there,
// with opts.
func (h *kafkaHarness) start(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(append(opts, kfake.NumBrokers(1), kfake.DataDir(h.dir))...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cluster is the running cluster.
func (h *kafkaHarness) cluster() *kfake.Cluster {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.c
}

func (h *kafkaHarness) Features() brokertest.Features {
	return brokertest.Features{RestartBroker: true, Ordered: true}
}

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
				kgo.FetchMaxWait(100 * time.Millisecond), kgo.WithHooks(disconnects{t, ctx})}})
	}, nil)
}

// disconnects logs the adapter's client losing a connection to a broker
// before the adapter stops (ctx ended): a restart shows in the log as
// that, whereas the client reports no error to the adapter while it dials
// again.
type disconnects struct {
	t   testing.TB
	ctx context.Context
}

func (d disconnects) OnBrokerDisconnect(meta kgo.BrokerMetadata, _ net.Conn) {
	if d.ctx.Err() == nil {
		d.t.Logf("the adapter's client lost a connection to broker %d", meta.NodeID)
	}
}

// RestartBroker closes the cluster, which cuts every connection and
// writes its state to h.dir, and starts one again on the same port from
// that state: the adapter's clients dial the same address again. The
// harness's own client, which publishes and reads offsets (not what the
// suite tests), is replaced.
func (h *kafkaHarness) RestartBroker(t testing.TB) {
	t.Helper()
	_, port, err := net.SplitHostPort(h.seeds[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.c.Close()
	h.c = h.start(t, kfake.Ports(p))
	h.cl.Close()
	h.cl = h.client(t)
}

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
