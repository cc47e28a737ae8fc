package brokertest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
)

// The messages of the cases that need many.
const (
	concurrentMessages  = 40
	concurrentConsumers = 3
	orderedMessages     = 20
	restartMessages     = 10
	poisonAttempts      = 3
)

// Run runs the suite's cases as subtests, each on a fresh Harness from
// newHarness and a fresh database; cases the harness's Features rule out
// are skipped, saying so.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Run("CrashBeforeCommit", func(t *testing.T) { crashBeforeCommit(t, newHarness(t)) })
	t.Run("CrashAfterCommitBeforeAck", func(t *testing.T) { crashAfterCommit(t, newHarness(t)) })
	t.Run("ConcurrentConsumers", func(t *testing.T) { severalConsumers(t, newHarness(t)) })
	t.Run("PoisonMessage", func(t *testing.T) { poison(t, newHarness(t)) })
	t.Run("UnusableID", func(t *testing.T) { unusableIDs(t, newHarness(t)) })
	t.Run("RestartedBroker", func(t *testing.T) { restartedBroker(t, newHarness(t)) })
	t.Run("Ordering", func(t *testing.T) { ordering(t, newHarness(t)) })
	t.Run("GracefulStop", func(t *testing.T) { gracefulStop(t, newHarness(t)) })
}

// stop stops c, failing t on an error.
func stop(t *testing.T, c *Consumer) {
	t.Helper()
	if err := c.Stop(); err != nil {
		t.Fatalf("stopping a consumer: %v", err)
	}
}

// ids returns n message ids with prefix.
func ids(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%03d", prefix, i)
	}
	return out
}

// each maps every id to n.
func each(ids []string, n int) map[string]int {
	m := make(map[string]int, len(ids))
	for _, id := range ids {
		m[id] = n
	}
	return m
}

// body is a message's payload.
func body(id string) []byte { return []byte(`{"id":"` + id + `"}`) }

// A consumer dies inside the handler: its transaction never commits and
// the broker redelivers the message to the next consumer, whose handler
// commits it once.
func crashBeforeCommit(t *testing.T, h Harness) {
	e := newEnv(t, 5)
	started := make(chan struct{})
	e.crashBefore = "m1"
	e.fail = func(ctx context.Context, _ string, run int) error {
		if run > 1 {
			return nil
		}
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}
	h.Publish(t, Message{ID: "m1", Body: body("m1")})
	first := h.Start(t, e)
	<-started
	first.crash()
	close(e.release)
	_ = first.wait() // the connection is gone: its error is the crash's
	second := h.Start(t, e)
	e.waitAcked("m1")
	stop(t, second)
	e.expect(h, map[string]int{"m1": 2}, map[string]int{"m1": 1}, 1)
	if got := e.outcomes["m1"]; !slices.Equal(got, []idem.MessageOutcome{idem.MessageProcessed}) {
		t.Errorf("outcomes %v, want [processed]", got)
	}
}

// A consumer dies after the commit, before its ack reaches the broker:
// the redelivery is acknowledged as a duplicate without running the
// handler.
func crashAfterCommit(t *testing.T, h Harness) {
	e := newEnv(t, 5)
	e.crashAfter = "m1"
	h.Publish(t, Message{ID: "m1", Body: body("m1")})
	first := h.Start(t, e)
	<-e.crashed
	first.crash()
	close(e.release)
	_ = first.wait()
	second := h.Start(t, e)
	e.waitFor("the redelivery's duplicate", func() bool { return len(e.outcomes["m1"]) == 2 })
	stop(t, second)
	e.expect(h, map[string]int{"m1": 1}, map[string]int{"m1": 1}, 1)
	if got := e.outcomes["m1"]; !slices.Equal(got, []idem.MessageOutcome{idem.MessageProcessed, idem.MessageDuplicate}) {
		t.Errorf("outcomes %v, want [processed duplicate]", got)
	}
}

// Several consumers share the subscription and every message is published
// twice (a producer's retry): each message's handler runs and commits
// once.
func severalConsumers(t *testing.T, h Harness) {
	e := newEnv(t, 5)
	ms := ids("c", concurrentMessages)
	var cs []*Consumer
	for range concurrentConsumers {
		cs = append(cs, h.Start(t, e))
	}
	for _, id := range ms {
		h.Publish(t, Message{ID: id, Body: body(id)})
	}
	for _, id := range ms {
		h.Publish(t, Message{ID: id, Body: body(id)})
	}
	copies := 2
	if h.Features().DedupesPublish {
		copies = 1
	}
	e.waitFor(fmt.Sprintf("%d copies of %d messages acknowledged", copies, len(ms)), func() bool {
		for _, id := range ms {
			if len(e.outcomes[id]) < copies {
				return false
			}
		}
		return true
	})
	for _, c := range cs {
		stop(t, c)
	}
	e.expect(h, each(ms, 1), each(ms, 1), len(ms))
	for _, id := range ms {
		// The copies ran at once on different consumers: the order in
		// which their outcomes were recorded is theirs.
		got := slices.Sorted(slices.Values(e.outcomes[id]))
		want := []idem.MessageOutcome{idem.MessageProcessed, idem.MessageDuplicate}[:copies]
		if !slices.Equal(got, want) {
			t.Errorf("message %s: outcomes %v, want %v in any order", id, e.outcomes[id], want)
		}
	}
}

// A message whose handler always fails is dead-lettered after the
// consumer's MaxAttempts, counted in the inbox row, and acknowledged; the
// message after it is processed.
func poison(t *testing.T, h Harness) {
	e := newEnv(t, poisonAttempts)
	e.fail = func(_ context.Context, id string, _ int) error {
		if id == "poison" {
			return errors.New("brokertest: poison")
		}
		return nil
	}
	h.Publish(t, Message{ID: "poison", Body: body("poison"), OrderKey: "p"})
	h.Publish(t, Message{ID: "good", Body: body("good"), OrderKey: "p"})
	c := h.Start(t, e)
	e.waitAcked("poison", "good")
	stop(t, c)
	e.expect(h, map[string]int{"poison": poisonAttempts, "good": 1}, map[string]int{"poison": 0, "good": 1}, 1)
	want := []idem.MessageOutcome{idem.MessageRetry, idem.MessageRetry, idem.MessageDeadLettered}
	if got := e.outcomes["poison"]; !slices.Equal(got, want) {
		t.Errorf("poison's outcomes %v, want %v", got, want)
	}
	var state string
	var attempts int
	if err := e.pool.QueryRow(t.Context(), `SELECT state, attempts FROM idempotency_inbox WHERE message_id = 'poison'`).
		Scan(&state, &attempts); err != nil {
		t.Fatal(err)
	}
	if state != "dead" || attempts != poisonAttempts {
		t.Errorf("poison's inbox row %s after %d attempts, want dead after %d", state, attempts, poisonAttempts)
	}
}

// Messages whose ids the consumer refuses (empty, longer than its
// MaxIDLength, not UTF-8, a control character) are refused once each and
// dropped by the adapter, never redelivered and never holding up the
// messages after them: the handler never runs for them, the inbox keeps
// nothing of them, and the broker holds nothing unacknowledged. The
// overlong id's first MaxIDLength bytes, published after it, are a new
// message, processed once: nothing was kept under a cut id.
func unusableIDs(t *testing.T, h Harness) {
	e := newEnv(t, 5)
	long := strings.Repeat("k", maxIDLength)
	bad := []string{"", long + "k", "bad\x01id", "bad\xffid"}
	good := []string{long, "good"}
	for _, id := range append(bad[:len(bad):len(bad)], good...) {
		h.Publish(t, Message{ID: id, Body: body("m"), OrderKey: "u"})
	}
	c := h.Start(t, e)
	e.waitAcked(good...)
	e.waitFor(fmt.Sprintf("%d messages refused", len(bad)), func() bool {
		for _, id := range bad {
			if e.refused[id] == 0 {
				return false
			}
		}
		return true
	})
	stop(t, c)
	e.expect(h, map[string]int{bad[0]: 0, bad[1]: 0, bad[2]: 0, bad[3]: 0, long: 1, "good": 1}, each(good, 1), len(good))
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, id := range bad {
		if n := e.refused[id]; n != 1 {
			t.Errorf("id %q refused %d times, want once (never redelivered)", id, n)
		}
		if os := e.outcomes[id]; len(os) != 0 {
			t.Errorf("id %q: outcomes %v, want none", id, os)
		}
	}
}

// The broker restarts twice under a running consumer. First while it
// waits for messages: it must connect again on its own, the broker
// perhaps still down. Then while its handler holds a message, which it
// commits after the restart: the ack may be lost with the connection the
// restart cut, and the broker then delivers the message again, answered
// as a duplicate. The messages published before and after the first
// restart, and the one held across the second, are each committed once,
// with one effect, and the broker holds nothing unacknowledged.
func restartedBroker(t *testing.T, h Harness) {
	f := h.Features()
	if !f.RestartBroker {
		t.Skip("the harness cannot restart its broker: " + cmp.Or(f.NoRestart, "it says not why"))
	}
	e := newEnv(t, 5)
	before, after := ids("before", restartMessages/2), ids("after", restartMessages/2)
	const across = "across"
	held, restarted := make(chan struct{}), make(chan struct{})
	e.fail = func(_ context.Context, id string, run int) error {
		if id == across && run == 1 {
			close(held)
			<-restarted
		}
		return nil
	}
	c := h.Start(t, e)
	for _, id := range before {
		h.Publish(t, Message{ID: id, Body: body(id)})
	}
	e.waitAcked(before...)
	h.RestartBroker(t)
	for _, id := range after {
		h.Publish(t, Message{ID: id, Body: body(id)})
	}
	e.waitAcked(after...)
	h.Publish(t, Message{ID: across, Body: body(across)})
	<-held
	h.RestartBroker(t)
	close(restarted)
	e.waitAcked(across)
	settle(t, h, e, c)
	all := append(append(before, after...), across)
	e.expect(h, each(all, 1), each(all, 1), len(all))
	got := e.outcomes[across]
	switch {
	case f.RestartRequeues:
		if want := []idem.MessageOutcome{idem.MessageProcessed, idem.MessageDuplicate}; !slices.Equal(got, want) {
			t.Errorf("%s's outcomes %v, want %v", across, got, want)
		}
	case len(got) == 0 || got[0] != idem.MessageProcessed ||
		slices.ContainsFunc(got[1:], func(o idem.MessageOutcome) bool { return o != idem.MessageDuplicate }):
		t.Errorf("%s's outcomes %v, want processed, then duplicates only", across, got)
	}
	t.Logf("%s was delivered %d times", across, len(got))
}

// settleRounds bounds the consumers settle starts.
const settleRounds = 3

// settle stops c and, while the broker still holds a message whose ack a
// restart lost, starts a consumer until it got one more delivery (the
// message again, a duplicate) and stops it: each round waits for a
// delivery the broker owes, never for time.
func settle(t *testing.T, h Harness, e *env, c *Consumer) {
	t.Helper()
	for round := 0; ; round++ {
		stop(t, c)
		n := h.Unacked(t)
		if n == 0 {
			return
		}
		if round == settleRounds {
			t.Fatalf("the broker still holds %d messages unacknowledged after %d consumers more", n, settleRounds)
		}
		e.mu.Lock()
		seen := e.deliveries()
		e.mu.Unlock()
		c = h.Start(t, e)
		e.waitFor(fmt.Sprintf("%d messages unacknowledged delivered again", n),
			func() bool { return e.deliveries() > seen })
	}
}

// One consumer commits the messages of one order key in the order they
// were published.
func ordering(t *testing.T, h Harness) {
	if !h.Features().Ordered {
		t.Skip("the broker promises no order")
	}
	e := newEnv(t, 5)
	ms := ids("o", orderedMessages)
	for _, id := range ms {
		h.Publish(t, Message{ID: id, Body: body(id), OrderKey: "order"})
	}
	c := h.Start(t, e)
	e.waitAcked(ms...)
	stop(t, c)
	e.expect(h, each(ms, 1), each(ms, 1), len(ms))
	rows, err := e.pool.Query(t.Context(), `SELECT message_id FROM applied ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got = append(got, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, ms) {
		t.Errorf("committed in the order %v, want %v", got, ms)
	}
}

// A consumer stopped while its handler runs returns only after that
// delivery committed and was acknowledged.
func gracefulStop(t *testing.T, h Harness) {
	e := newEnv(t, 5)
	started, proceed := make(chan struct{}), make(chan struct{})
	e.fail = func(context.Context, string, int) error {
		close(started)
		<-proceed
		return nil
	}
	h.Publish(t, Message{ID: "m1", Body: body("m1")})
	c := h.Start(t, e)
	<-started
	c.cancel() // the stop comes first, the handler's end after it
	close(proceed)
	if err := c.wait(); err != nil {
		t.Fatalf("stopping a consumer: %v", err)
	}
	e.expect(h, map[string]int{"m1": 1}, map[string]int{"m1": 1}, 1)
	if got := e.outcomes["m1"]; !slices.Equal(got, []idem.MessageOutcome{idem.MessageProcessed}) {
		t.Errorf("outcomes %v, want [processed]", got)
	}
}
