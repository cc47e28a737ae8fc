// Package kafka consumes Kafka topics, as a member of a consumer group,
// into an idempotent consumer (idem.Consumer) through franz-go's kgo
// client. Kafka has no acknowledgement of one message: a partition's
// committed offset acknowledges everything before it. So each partition's
// records are delivered in order, a record to retry is retried in place
// with a delay (the records after it wait), and the offset committed never
// passes a record whose outcome did not say Ack. It links franz-go, so it
// is a package of its own (see idembroker).
package kafka

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idembroker"
)

// DefaultIDHeader is the record header holding a message's id when
// Config.IDHeader is "".
const DefaultIDHeader = "message-id"

// DefaultRetryDelay is the wait before a record is delivered again in
// place when Config.RetryDelay is 0.
const DefaultRetryDelay = time.Second

// Config configures Run.
type Config struct {
	// Options configure the client: seed brokers, kgo.ConsumerGroup and
	// kgo.ConsumeTopics at least. Run adds kgo.AutoCommitMarks and
	// kgo.BlockRebalanceOnPoll: only records whose outcome said Ack are
	// committed, and a partition is not taken away in the middle of a
	// poll's records.
	Options []kgo.Opt
	// Deliverer gets the messages: an *idem.Consumer.
	Deliverer idembroker.Deliverer
	// IDHeader names the record header holding the message's id; ""
	// means DefaultIDHeader. A record without it is named by its
	// partition and offset.
	IDHeader string
	// RetryDelay is the wait before a record to retry is delivered again;
	// 0 means DefaultRetryDelay.
	RetryDelay time.Duration
	// OnError, if set, gets the errors that do not stop Run: a fetch or
	// a commit that failed, a delivery that decided nothing (it is
	// retried in place).
	OnError func(error)
}

// Run consumes until ctx ends, then commits the offsets of the records
// acknowledged, leaves the group and returns; the delivery in flight runs
// to its end first (ctx's end does not interrupt it, but stops its retries
// in place). It returns an error when the client cannot be created.
//
// A broker restart or a lost connection does not end Run: the errors of
// the fetches meanwhile go to OnError and kgo dials again, rejoins the
// group and resumes from the committed offsets. Offsets are committed
// only for records whose Deliver returned an outcome that said Ack, so a
// record delivered before a restart whose offset was not committed comes
// again and is answered as a duplicate.
//
// The message's source is its topic; its id is the IDHeader header (the
// first, if several), or "partition/offset" without one. A record whose id
// the consumer refuses (idem.ErrInvalidMessage: empty, too long, not
// UTF-8, a control character) can never be processed: Kafka has no dead
// letter of its own, so it is reported and skipped (committed), never
// retried in place where it would hold its partition up. Attempts are
// counted in the inbox row: a record retried in place is dead-lettered,
// then committed, after the consumer's MaxAttempts.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Deliverer == nil {
		return errors.New("kafka: Run needs a Deliverer")
	}
	if cfg.IDHeader == "" {
		cfg.IDHeader = DefaultIDHeader
	}
	if cfg.RetryDelay == 0 {
		cfg.RetryDelay = DefaultRetryDelay
	}
	cl, err := kgo.NewClient(append(cfg.Options[:len(cfg.Options):len(cfg.Options)],
		kgo.AutoCommitMarks(), kgo.BlockRebalanceOnPoll())...)
	if err != nil {
		return fmt.Errorf("kafka: %w", err)
	}
	defer cl.CloseAllowingRebalance()
	for ctx.Err() == nil {
		fetches := cl.PollFetches(ctx)
		if fetches.IsClientClosed() {
			break
		}
		for _, fe := range fetches.Errors() {
			if !errors.Is(fe.Err, context.Canceled) {
				cfg.report(fmt.Errorf("kafka: fetching %s/%d: %w", fe.Topic, fe.Partition, fe.Err))
			}
		}
		fetches.EachPartition(func(p kgo.FetchTopicPartition) {
			for _, r := range p.Records {
				if !cfg.deliver(ctx, r) {
					return
				}
				cl.MarkCommitRecords(r)
			}
		})
		cl.AllowRebalance()
	}
	cfg.report(cl.CommitMarkedOffsets(context.WithoutCancel(ctx)))
	return nil
}

// deliver hands r to the Deliverer until an outcome says Ack, retrying in
// place after the retry delay; false when ctx ended first.
func (cfg *Config) deliver(ctx context.Context, r *kgo.Record) bool {
	m := idem.Message{Source: r.Topic, Body: r.Value}
	hasID := false
	for _, h := range r.Headers {
		switch h.Key {
		case cfg.IDHeader:
			if !hasID {
				m.ID, hasID = string(h.Value), true
			}
		case "traceparent":
			m.TraceContext = string(h.Value)
		}
	}
	if !hasID {
		m.ID = strconv.FormatInt(int64(r.Partition), 10) + "/" + strconv.FormatInt(r.Offset, 10)
	}
	for ctx.Err() == nil {
		res, err := cfg.Deliverer.Deliver(context.WithoutCancel(ctx), m)
		switch {
		case errors.Is(err, idem.ErrInvalidMessage):
			cfg.report(fmt.Errorf("kafka: record %d/%d of %s, skipped: its %s header: %w", r.Partition, r.Offset, r.Topic, cfg.IDHeader, err))
			return true
		case err == nil && res.Outcome.Ack():
			return true
		}
		if err != nil {
			cfg.report(fmt.Errorf("kafka: message %s of %s: %w", m.ID, m.Source, err))
		}
		select {
		case <-time.After(cfg.RetryDelay):
		case <-ctx.Done():
		}
	}
	return false
}

// report hands a non-nil err to OnError.
func (cfg *Config) report(err error) {
	if err != nil && cfg.OnError != nil {
		cfg.OnError(err)
	}
}
