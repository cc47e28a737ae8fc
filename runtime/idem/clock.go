package idem

import "time"

// Clock tells the executor the time on its host, and decides nothing: the
// database's clock does. Retention and tombstone deadlines are computed
// from the database's now() and compared with it, and so are leases and
// sweeps, so a host whose clock is skewed answers every key as the others
// do and deletes nothing early. The executor measures with its Clock only
// how long a replay it cached stays valid (what remained of retention when
// the database answered), and compares it with the database's at each
// sweep to log a skew past MaintainOptions.MaxClockSkew. Tests move the
// database's view of a record's time instead (its deadlines, in SQL).
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
