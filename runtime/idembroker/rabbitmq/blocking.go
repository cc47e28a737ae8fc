package rabbitmq

import (
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"
)

// blocking follows whether the broker blocks a connection: it sends
// connection.blocked while a memory or disk alarm stops it reading the
// connection's publishes, and connection.unblocked when that ends.
type blocking struct {
	mu sync.Mutex
	// reason is the broker's reason while it blocks the connection, ""
	// while it does not.
	reason string
	// blocked is closed when the broker blocks the connection next.
	blocked chan struct{}
}

// watchBlocking follows conn's blocked state until conn closes. The
// client hands notices over from its reader, which waits until they are
// taken: a goroutine takes them at once.
func watchBlocking(conn *amqp.Connection) *blocking {
	b := &blocking{blocked: make(chan struct{})}
	notices := conn.NotifyBlocked(make(chan amqp.Blocking, 1))
	go func() {
		for n := range notices {
			b.set(n)
		}
	}()
	return b
}

// set records notice n.
func (b *blocking) set(n amqp.Blocking) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case n.Active && b.reason == "":
		b.reason = n.Reason
		if b.reason == "" {
			b.reason = "no reason given"
		}
		close(b.blocked)
	case !n.Active && b.reason != "":
		b.reason = ""
		b.blocked = make(chan struct{})
	}
}

// now returns the broker's reason while it blocks the connection, "" while
// it does not, and a channel closed when it blocks it next (closed
// already while it does).
func (b *blocking) now() (blocked <-chan struct{}, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.blocked, b.reason
}
