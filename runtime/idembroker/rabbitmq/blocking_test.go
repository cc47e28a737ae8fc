package rabbitmq

import (
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

// The broker's notices move the state: connection.blocked closes the
// channel taken before it and gives its reason (or says none was given),
// a repeated notice changes nothing, and connection.unblocked hands out a
// new open channel for the next block.
func TestBlockingFollowsTheNotices(t *testing.T) {
	b := &blocking{blocked: make(chan struct{})}
	before, reason := b.now()
	if reason != "" || isClosed(before) {
		t.Fatalf("new: reason %q, closed %v; want unblocked", reason, isClosed(before))
	}
	b.set(amqp.Blocking{Active: true, Reason: "low on memory"})
	if _, reason = b.now(); reason != "low on memory" || !isClosed(before) {
		t.Fatalf("blocked: reason %q, earlier channel closed %v", reason, isClosed(before))
	}
	b.set(amqp.Blocking{Active: true, Reason: "again"}) // must not close twice
	if _, reason = b.now(); reason != "low on memory" {
		t.Errorf("a second notice changed the reason to %q", reason)
	}
	b.set(amqp.Blocking{Active: false})
	after, reason := b.now()
	if reason != "" || isClosed(after) {
		t.Fatalf("unblocked: reason %q, channel closed %v", reason, isClosed(after))
	}
	b.set(amqp.Blocking{Active: false})
	b.set(amqp.Blocking{Active: true})
	if _, reason = b.now(); reason != "no reason given" || !isClosed(after) {
		t.Errorf("blocked without a reason: reason %q, channel closed %v", reason, isClosed(after))
	}
}

// isClosed reports whether c is closed, without waiting.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
