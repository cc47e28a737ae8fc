package idemtest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// FakeClock is an idem.Clock that moves only when told. It is safe for
// concurrent use. The executor decides no deadline by its Clock (the
// database's now() decides them all); it measures with it how long a
// replay it cached stays valid. A test that moves time moves both views:
// the executor's with Advance, the database's with Age.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a clock standing at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{now: t} }

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// SkewedClock is an idem.Clock off the true time by its value, as the
// clock of a host that drifted or was set wrong: SkewedClock(2*time.Hour)
// runs two hours ahead. Tests give it to one of several executors to show
// that they answer as one.
type SkewedClock time.Duration

// Now returns the true time moved by the skew.
func (c SkewedClock) Now() time.Time { return time.Now().Add(time.Duration(c)) }

// Execer runs a statement; *pgxpool.Pool, *pgx.Conn and pgx.Tx are Execers.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// Age moves time d forward for the idempotency records and natural-key
// rows of scope, as the database's clock sees them: their creation,
// completion and deadlines move d into the past, so that retention, the
// tombstone period and a natural key's lifetime end as they would d later.
// The tables are found through db's search_path.
func Age(ctx context.Context, db Execer, scope string, d time.Duration) error {
	const record = `UPDATE idempotency_record
		SET created_at = created_at - make_interval(secs => $2), completed_at = completed_at - make_interval(secs => $2),
		    expires_at = expires_at - make_interval(secs => $2), purge_at = purge_at - make_interval(secs => $2)
		WHERE scope = $1`
	const naturalKey = `UPDATE idempotency_natural_key SET created_at = created_at - make_interval(secs => $2) WHERE scope = $1`
	for _, sql := range []string{record, naturalKey} {
		if _, err := db.Exec(ctx, sql, scope, d.Seconds()); err != nil {
			return fmt.Errorf("idemtest: age the records of %q: %w", scope, err)
		}
	}
	return nil
}
