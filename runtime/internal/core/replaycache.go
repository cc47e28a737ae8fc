package core

import (
	"bytes"
	"container/list"
	"sync"
	"time"

	"github.com/idemgen/idemgen/runtime/internal/pgstore"
)

// DefaultReplayCacheBytes is the memory the replay cache may hold when
// Config.ReplayCacheBytes is 0.
const DefaultReplayCacheBytes = 32 << 20

// replayCache keeps decided records (completed or failed), as they were
// read from the database, until their retention ends, so that a retry of
// a decided operation is answered with no round trip and no connection.
// A decided record never changes before its retention ends (support
// settles only operations that wait for it; the sweeper touches only
// records past retention), so a cached one answers exactly as the
// database would: a replay, or a conflict for a different fingerprint.
// Retention ends on the database's clock: the cache keeps what was left of
// it when the database answered (expires_at minus the read's time, both
// the database's), measured from then on the executor's Clock, so a host
// whose clock is skewed keeps a record neither longer nor shorter. From
// then on the attempt goes to the database, which answers expired, or runs
// a new operation once the sweeper has forgotten the key.
// An attempt under replay: current (Attempt.Current) neither reads nor
// fills it: its replay is the resource as it is now, which no record
// holds, so it always reads its record and asks the service.
// It is bounded by the bytes of the records it holds and evicts the least
// recently used.
type replayCache struct {
	mu      sync.Mutex
	max     int64
	size    int64
	entries map[replayKey]*list.Element
	order   *list.List // front: most recently used
}

// replayKey is a record's key: the scope and the idempotency key.
type replayKey struct{ scope, key string }

// replayEntry is one cached record and the bytes it counts for.
type replayEntry struct {
	k    replayKey
	rec  pgstore.Record
	size int64
	// cachedAt is the executor's Clock when rec was read: how long ago
	// that was moves rec.ReadAt on, and the entry ends once it reaches
	// rec.ExpiresAt.
	cachedAt time.Time
}

// newReplayCache returns a cache of at most max bytes, nil (no cache) when
// max is negative.
func newReplayCache(max int64) *replayCache {
	switch {
	case max < 0:
		return nil
	case max == 0:
		max = DefaultReplayCacheBytes
	}
	return &replayCache{max: max, entries: map[replayKey]*list.Element{}, order: list.New()}
}

// get returns a copy of the decided record cached for (scope, key) while
// its retention runs at now, the executor's Clock: its ReadAt moved on by
// the time since it was cached; nil otherwise (an expired one is dropped).
func (c *replayCache) get(scope, key string, now time.Time) *pgstore.Record {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[replayKey{scope, key}]
	if !ok {
		return nil
	}
	e := el.Value.(*replayEntry)
	rec := cloneRecord(&e.rec)
	rec.ReadAt = rec.ReadAt.Add(now.Sub(e.cachedAt))
	if rec.Expired() {
		c.remove(el)
		return nil
	}
	c.order.MoveToFront(el)
	return rec
}

// put caches rec, just read, for (scope, key) when it is decided and
// still within its retention, with now, the executor's Clock; a record
// larger than an eighth of the cache is not kept, nor one without the
// database's time of its read, whose retention left is unknown.
func (c *replayCache) put(scope, key string, rec *pgstore.Record, now time.Time) {
	if c == nil || (rec.State != pgstore.StateCompleted && rec.State != pgstore.StateFailed) || rec.ReadAt.IsZero() || rec.Expired() {
		return
	}
	k := replayKey{scope, key}
	size := int64(len(scope)+len(key)+len(rec.Fingerprint)+len(rec.Header)+len(rec.Body)) + 128
	if size > c.max/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[k]; ok {
		c.remove(el)
	}
	c.entries[k] = c.order.PushFront(&replayEntry{k: k, rec: *cloneRecord(rec), size: size, cachedAt: now})
	c.size += size
	for c.size > c.max {
		c.remove(c.order.Back())
	}
}

// remove drops the entry el; the caller holds c.mu.
func (c *replayCache) remove(el *list.Element) {
	e := el.Value.(*replayEntry)
	c.order.Remove(el)
	delete(c.entries, e.k)
	c.size -= e.size
}

// cloneRecord copies rec and its slices, so that no caller shares the
// cached bytes.
func cloneRecord(rec *pgstore.Record) *pgstore.Record {
	out := *rec
	out.Fingerprint = bytes.Clone(rec.Fingerprint)
	out.Header = bytes.Clone(rec.Header)
	out.Body = bytes.Clone(rec.Body)
	return &out
}
