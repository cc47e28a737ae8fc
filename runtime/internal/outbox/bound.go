package outbox

import (
	"fmt"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/outbox/internal/sqlcdb"
	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// bounded returns the worker's statements, each sent after pgstore's
// BoundLockWaits at wait in one round trip and one implicit transaction,
// so that the server ends every lock wait of the statement at wait, a
// wait for a table's lock (DDL, VACUUM FULL, LOCK TABLE in another
// session) included, with SQLSTATE 55P03, also a wait of the statement's
// preparation on the connection (pgstore.Bounded). Run's context has no
// deadline, and a worker's statements would otherwise wait under the
// session's lock_timeout (none by default) as long as such a lock lasts.
func (w *Worker) bounded(wait time.Duration) *sqlcdb.Queries {
	return sqlcdb.New(w.schema.On(pgstore.Bounded(w.cfg.Pool, wait)))
}

// claimWait bounds the lock waits of a claim, and of the gauge's reading:
// the poll interval, and no more than the lease's tenth. A claim takes
// its rows SKIP LOCKED, so only a table's lock makes it wait, and waiting
// past the next poll gains nothing: the claim that follows finds the same
// effects due, and meanwhile the worker's loop goes on calling and
// recording. The lease's tenth caps it for a long poll interval, as it
// caps a record's and a release's waits (the lease runs from the claim's
// transaction start, so its wait comes out of the call's time). A claim
// the server ended claimed nothing (claimError).
func (w *Worker) claimWait() time.Duration { return min(w.cfg.PollInterval, w.cfg.Lease/10) }

// claimError is the error of a claim that failed after waiting wait: for a
// wait the server ended (55P03) it says that nothing was claimed and that
// the next poll claims again.
func claimError(err error, wait time.Duration) error {
	if !pgstore.IsLockTimeout(err) {
		return err
	}
	return fmt.Errorf("a lock on the outbox's tables outlasted the claim's bound (%v): nothing claimed, the next poll claims again: %w",
		wait, err)
}
