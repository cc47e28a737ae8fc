package outbox

import (
	"log/slog"
	"time"
)

// outageEvery is how often an outage's failures are logged again after
// its first.
const outageEvery = time.Minute

// outageLog logs the failures of a statement the worker repeats on every
// poll (a claim, a gauge reading): the first of an outage at once, the
// ones after it once per outageEvery with their count, and the recovery,
// so that a database that is down for an hour fills the log with about
// sixty lines rather than tens of thousands. It belongs to the one
// goroutine that runs the statement.
type outageLog struct {
	logger *slog.Logger
	what   string           // the statement's purpose, such as "claiming effects"
	now    func() time.Time // time.Now in a worker

	failures int       // since the last success
	since    time.Time // the outage's first failure
	logged   time.Time // the last line logged
}

// fail counts a failure of the statement and logs it when due.
func (o *outageLog) fail(err error) {
	now := o.now()
	o.failures++
	switch {
	case o.failures == 1:
		o.since, o.logged = now, now
		o.logger.Error("idem: "+o.what, "err", err)
	case now.Sub(o.logged) >= outageEvery:
		o.logged = now
		o.logger.Error("idem: "+o.what+" still fails", "err", err, "failures", o.failures,
			"since", o.since.Format(time.RFC3339))
	}
}

// ok notes a success of the statement, logging the end of an outage.
func (o *outageLog) ok() {
	if o.failures == 0 {
		return
	}
	o.logger.Info("idem: "+o.what+" works again", "failures", o.failures, "down_for", o.now().Sub(o.since).Round(time.Millisecond))
	o.failures = 0
}
