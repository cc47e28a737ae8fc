package core

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// scopeBusyRetryAfter is the Retry-After of a request refused because its
// scope ran its whole share while the pool was saturated.
const scopeBusyRetryAfter = time.Second

// scopeShares keeps one scope's operations from taking every connection
// of the pool while another scope's wait for one: each scope runs at most
// its share of operations at once (each holds, or waits for, a pool
// connection), by default all connections but one, which stays for the
// other scopes. A scope at its share waits at this gate, not in the
// pool's queue, so that a connection that frees goes to another scope's
// request first; past the acquire deadline it is refused (ErrScopeBusy,
// 429 with Retry-After), nothing of it kept.
type scopeShares struct {
	share   int
	mu      sync.Mutex
	running map[string]int
	changed chan struct{} // closed and replaced when an operation leaves while one waits
	waiting bool          // a waiter holds changed
}

// newScopeShares returns the gate for Config.ScopeShare: share
// operations per scope; for 0, the pool's connections but one (at least
// one); no gate (nil) for a negative share.
func newScopeShares(share int, poolConns int32) *scopeShares {
	switch {
	case share < 0:
		return nil
	case share == 0:
		share = max(1, int(poolConns)-1)
	}
	return &scopeShares{share: share, running: map[string]int{}, changed: make(chan struct{})}
}

// enter takes a place for scope, waiting while the scope runs its share,
// until deadline; ok is false past it (or when ctx ends). leave gives the
// place back.
func (s *scopeShares) enter(ctx context.Context, scope string, deadline time.Time) (leave func(), ok bool) {
	if s == nil {
		return func() {}, true
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		s.mu.Lock()
		if s.running[scope] < s.share {
			s.running[scope]++
			s.mu.Unlock()
			return func() { s.leave(scope) }, true
		}
		changed := s.changed
		s.waiting = true
		s.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
	}
}

// leave gives scope's place back and wakes the waiters.
func (s *scopeShares) leave(scope string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running[scope]--; s.running[scope] == 0 {
		delete(s.running, scope)
	}
	if s.waiting {
		close(s.changed)
		s.changed, s.waiting = make(chan struct{}), false
	}
}

// enterShare takes a place for the attempt's scope, or refuses the
// attempt with ErrScopeBusy once its acquire deadline passed.
func (e *Executor) enterShare(ctx context.Context, at *attempt) (leave func(), err error) {
	leave, ok := e.shares.enter(ctx, at.Scope, time.Now().Add(e.acquireTimeout(at)))
	switch {
	case ok:
		return leave, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("idem: waiting for the scope's share: %w", context.Cause(ctx))
	}
	return nil, e.refuse(ctx, at, EventScopeBusy, &RefusalError{Err: ErrScopeBusy, RetryAfter: scopeBusyRetryAfter})
}
