package core

import "time"

// Clock tells the executor the time; runtime/idem documents it for
// services.
type Clock interface {
	Now() time.Time
}

// systemClock is the wall clock, the default.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
