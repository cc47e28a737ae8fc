// Package idembroker runs the broker adapters of the idempotent consumer
// (runtime/idembroker) through their suite (runtime/idembroker/brokertest)
// on real brokers: an embedded NATS server with JetStream, Kafka through
// franz-go's in-process kfake cluster, and the machine's RabbitMQ
// (RABBITMQ_URL). The servers' modules are test-only, hence here.
// BenchmarkJetStreamInbox and BenchmarkRabbitMQInbox time the inbox
// through each adapter against a bare consumer of the same broker
// (docs/benchmarks.md, issue 21).
package idembroker
