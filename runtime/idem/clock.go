package idem

import "time"

// Clock tells the executor the time. Retention and tombstone deadlines are
// computed from it and compared with it, never with the database's clock,
// so tests can move time with a fake.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
