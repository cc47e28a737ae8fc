package core_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/core"
)

// movableClock is a clock a test moves forward.
type movableClock struct{ offset atomic.Int64 }

func (c *movableClock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// A retry of a decided operation is answered from the replay cache once
// the record was read: with the pool closed, so no round trip is
// possible, the cached key still replays the same answer and a different
// fingerprint under it is still a conflict; another scope's key, and a
// key past its retention, need the database. A second executor on the
// same database, without a cache, answers the same. The cached entry ends
// when the executor's clock has moved on by what was left of retention on
// the database's clock when it was read.
func TestReplayCacheAnswersAsTheDatabaseWould(t *testing.T) {
	c, pool, cs := newConsumer(t, core.ProtocolAdvisory, 0)
	clock := &movableClock{}
	cachedPool := openPool(t, cs)
	cached, err := core.New(core.Config{Pool: cachedPool, Protocol: core.ProtocolAdvisory, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	uncached, err := core.New(core.Config{Pool: pool, Protocol: core.ProtocolAdvisory, Clock: clock, ReplayCacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	m := message{Source: "acme", ID: "msg-1", Body: []byte(`{"amount":1}`)}
	withCache, withoutCache := &consumer{exec: cached, policy: c.policy}, &consumer{exec: uncached, policy: c.policy}
	first, err := withCache.handle(t.Context(), m, book(m, &calls))
	if err != nil || first.Replayed {
		t.Fatalf("first: %+v, %v", first, err)
	}
	// Replayed by the cache's first read, then by the other instance: as
	// the database replays it.
	var stored core.Outcome
	for i, h := range []*consumer{withCache, withoutCache} {
		res, err := h.handle(t.Context(), m, book(m, &calls))
		if err != nil || !res.Replayed || res.OperationID != first.OperationID || string(res.Outcome.Body) != "booked msg-1" {
			t.Fatalf("replay %d: %+v, %v", i, res, err)
		}
		stored = res.Outcome
	}

	cachedPool.Close() // from here on the cached executor can reach no database
	res, err := withCache.handle(t.Context(), m, book(m, &calls))
	if err != nil || !res.Replayed || res.OperationID != first.OperationID || string(res.Outcome.Body) != "booked msg-1" ||
		string(res.Outcome.Meta) != string(stored.Meta) || res.Outcome.Code != stored.Code {
		t.Fatalf("a cached replay without a database: %+v, %v", res, err)
	}
	changed := m
	changed.Body = []byte(`{"amount":2}`)
	if _, err := withCache.handle(t.Context(), changed, book(changed, &calls)); !errors.Is(err, core.ErrFingerprintMismatch) {
		t.Errorf("a different request under the cached key: %v, want a fingerprint conflict", err)
	}
	if _, err := withoutCache.handle(t.Context(), changed, book(changed, &calls)); !errors.Is(err, core.ErrFingerprintMismatch) {
		t.Errorf("the same at the other instance: %v, want a fingerprint conflict", err)
	}
	other := m
	other.Source = "globex"
	if _, err := withCache.handle(t.Context(), other, book(other, &calls)); err == nil || errors.Is(err, core.ErrFingerprintMismatch) {
		t.Errorf("another scope's key: %v; want the database's turn (unreachable here), not the cached answer", err)
	}

	// Past the record's retention: on the executor's clock, which times
	// the cached entry, and on the database's, which decides.
	clock.offset.Store(int64(c.policy.Retention))
	if _, err := pool.Exec(t.Context(), `UPDATE idempotency_record
		SET expires_at = expires_at - make_interval(secs => $1), purge_at = purge_at - make_interval(secs => $1)`,
		c.policy.Retention.Seconds()); err != nil {
		t.Fatal(err)
	}
	if _, err := withCache.handle(t.Context(), m, book(m, &calls)); err == nil {
		t.Errorf("past retention the cached executor answered without the database: %v", err)
	}
	if _, err := withoutCache.handle(t.Context(), m, book(m, &calls)); !errors.Is(err, core.ErrExpired) {
		t.Errorf("past retention the other instance: %v, want expired", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the business ran %d times, want once", n)
	}
}
