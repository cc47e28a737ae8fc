package core

import "time"

// Clock tells the executor the time on its host. It decides nothing the
// database's clock decides (deadlines, expiry, leases): the executor
// measures with it how long a cached replay stays valid, and compares it
// with the database's to log a skew; runtime/idem documents it for
// services.
type Clock interface {
	Now() time.Time
}

// systemClock is the wall clock, the default.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
