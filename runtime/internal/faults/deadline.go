package faults

import (
	"context"
	"sync"
	"time"
)

// Deadline is a request context whose deadline passes when a test calls
// Pass, not at a time: Done closes and Err turns to
// context.DeadlineExceeded, as a context.WithDeadline's do when its
// deadline passes, so that the test decides by a barrier where the
// request is when it does. Its Deadline method reports a time far off,
// so the runtime bounds no wait by it.
type Deadline struct {
	context.Context // context.Background(): context.Cause then reads Err
	far             time.Time
	done            chan struct{}
	once            sync.Once
}

// NewDeadline returns a context whose deadline has not passed; Deadline
// reports it at far from now.
func NewDeadline(far time.Duration) *Deadline {
	return &Deadline{Context: context.Background(), far: time.Now().Add(far), done: make(chan struct{})}
}

// Deadline reports the far-off time given to NewDeadline.
func (c *Deadline) Deadline() (time.Time, bool) { return c.far, true }

// Done is closed once Pass is called.
func (c *Deadline) Done() <-chan struct{} { return c.done }

// Err is context.DeadlineExceeded once Pass is called, nil before.
func (c *Deadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// Pass lets the deadline pass; calling it again does nothing.
func (c *Deadline) Pass() { c.once.Do(func() { close(c.done) }) }
