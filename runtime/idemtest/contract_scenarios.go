package idemtest

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// The shape of the concurrent-duplicates scenario.
const (
	concurrentPools    = 4
	concurrentRequests = 16
	concurrentRounds   = 3
	// concurrentWaitTimeout is the least wait-timeout the scenario runs
	// with: long enough that duplicates on a loaded machine replay instead
	// of timing out.
	concurrentWaitTimeout = 30 * time.Second
)

// concurrentDuplicates fires identical requests on one key at once, from
// several pools, and wants one effect and one answer per round.
func (r *contractRun[T]) concurrentDuplicates(t *testing.T) {
	contract := r.contract
	reject := contract.Concurrency == idemimpl.ConcurrencyReject
	if !reject && contract.WaitTimeout < concurrentWaitTimeout {
		contract.WaitTimeout = concurrentWaitTimeout
	}
	handlers := make([]http.Handler, concurrentPools)
	for i := range handlers {
		handlers[i], _ = r.server(t, openPool(t, r.c.ConnString, concurrentRequests/concurrentPools), contract, idem.Config{}, faults.Hooks{})
	}
	scope := freshName(t, "concurrent")
	for round := range concurrentRounds {
		p, key := r.fresh(t, scope), r.freshKey(t)
		reqs := make([]*http.Request, concurrentRequests)
		for i := range reqs {
			reqs[i] = r.request(t, t.Context(), p, scope, key)
		}
		got := Concurrently(concurrentRequests, func(i int) Response { return Serve(handlers[i%concurrentPools], reqs[i]) })

		var fresh []int
		for i, res := range got {
			switch {
			case res.Status == 0 || res.Status >= 500:
				t.Errorf("round %d, request %d: got %s; want no 5xx", round, i, describe(res))
			case isReplay(res):
			case reject && res.Status == http.StatusConflict:
				wantProblem(t, fmt.Sprintf("round %d, request %d (concurrency reject)", round, i), res, http.StatusConflict, idem.ProblemInProgress)
			case res.Status < 200 || res.Status > 399:
				t.Errorf("round %d, request %d: got %s; want the operation's answer or its replay", round, i, describe(res))
			default:
				fresh = append(fresh, i)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
		if len(fresh) != 1 {
			t.Fatalf("round %d: %d of %d identical requests were answered as new operations (requests %v), want exactly 1 and the others replayed",
				round, len(fresh), concurrentRequests, fresh)
		}
		first := got[fresh[0]]
		wantAccepted(t, fmt.Sprintf("round %d, the request that ran", round), first, false)
		for i, res := range got {
			if isReplay(res) {
				wantSameAnswer(t, fmt.Sprintf("round %d, replay %d", round, i), first, res)
			}
		}
		r.wantEffects(t, scope, round+1, fmt.Sprintf("after round %d of %d identical concurrent requests", round, concurrentRequests))
		later := Serve(handlers[0], r.request(t, t.Context(), p, scope, key))
		wantAccepted(t, fmt.Sprintf("round %d, a retry after the burst", round), later, true)
		wantSameAnswer(t, fmt.Sprintf("round %d, a retry after the burst", round), first, later)
	}
}

// lostResponse loses the response of a committed request and wants the
// retry to get the stored answer.
func (r *contractRun[T]) lostResponse(t *testing.T) {
	h, _ := r.server(t, r.pool, r.contract, idem.Config{}, faults.Hooks{AfterCommit: faults.FailFirst(1)})
	scope := freshName(t, "lost")
	key, p := r.freshKey(t), r.fresh(t, scope)
	lost := Serve(h, r.request(t, t.Context(), p, scope, key))
	if lost.Status != 0 {
		t.Fatalf("first request: got %s; want the response lost (the AfterCommit hook fails, the adapter aborts)", describe(lost))
	}
	r.wantEffects(t, scope, 1, "after the lost response")
	retry := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "retry after the lost response", retry, true)
	again := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "second retry", again, true)
	wantSameAnswer(t, "second retry", retry, again)
	r.wantEffects(t, scope, 1, "after two retries of a lost response")
}

// changedField reuses a key for a request whose significant field changed
// and wants the 422 problem and no effect.
func (r *contractRun[T]) changedField(t *testing.T) {
	if r.c.Change == nil {
		t.Skip("no significant field to change: the generator found none in the fingerprint (Change is nil)")
	}
	h, _ := r.server(t, r.pool, r.contract, idem.Config{}, faults.Hooks{})
	scope, key := freshName(t, "changed"), r.freshKey(t)
	req := r.c.Fixture.Request(scope)
	p := r.prepare(t, req)
	first := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "first request", first, false)
	r.c.Change(req)
	changed := r.prepare(t, req)
	if bytes.Equal(changed.body, p.body) {
		t.Fatalf("Change left the encoded request as it was: %s", p.body)
	}
	res := Serve(h, r.request(t, t.Context(), changed, scope, key))
	wantProblem(t, "same key, changed significant field", res, http.StatusUnprocessableEntity, idem.ProblemFingerprint)
	r.wantEffects(t, scope, 1, "after the changed request")
	retry := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "retry of the original after the changed request", retry, true)
	wantSameAnswer(t, "retry of the original after the changed request", first, retry)
}

// newKey sends the same content under two keys and wants two operations.
func (r *contractRun[T]) newKey(t *testing.T) {
	if r.c.NaturalKey {
		t.Skip("the contract declares a natural key: the same content under a new key is the same entity")
	}
	h, _ := r.server(t, r.pool, r.contract, idem.Config{}, faults.Hooks{})
	scope := freshName(t, "newkey")
	p := r.fresh(t, scope)
	first := Serve(h, r.request(t, t.Context(), p, scope, r.freshKey(t)))
	wantAccepted(t, "first key", first, false)
	second := Serve(h, r.request(t, t.Context(), p, scope, r.freshKey(t)))
	wantAccepted(t, "same content, new key", second, false)
	r.wantEffects(t, scope, 2, "after the same content under two keys")
}

// otherScope sends one key in two scopes and wants two independent
// operations. The second scope gets a request the fixture made for it (an
// operation on an existing resource needs one of that scope's resources),
// so a scope leak shows as a 422 or a replay where a new operation must
// answer.
func (r *contractRun[T]) otherScope(t *testing.T) {
	h, _ := r.server(t, r.pool, r.contract, idem.Config{}, faults.Hooks{})
	scopeA, scopeB := freshName(t, "scope-a"), freshName(t, "scope-b")
	key, p := r.freshKey(t), r.fresh(t, scopeA)
	first := Serve(h, r.request(t, t.Context(), p, scopeA, key))
	wantAccepted(t, "first scope", first, false)
	pb := r.fresh(t, scopeB)
	second := Serve(h, r.request(t, t.Context(), pb, scopeB, key))
	wantAccepted(t, "same key in another scope", second, false)
	r.wantEffects(t, scopeA, 1, "first scope, after the other scope's request")
	r.wantEffects(t, scopeB, 1, "other scope")
	retry := Serve(h, r.request(t, t.Context(), p, scopeA, key))
	wantAccepted(t, "retry in the first scope", retry, true)
	wantSameAnswer(t, "retry in the first scope", first, retry)
}

// rolledBack fails an attempt after the business function ran, before
// commit, and wants no effect of it, then one from the retry.
func (r *contractRun[T]) rolledBack(t *testing.T) {
	h, _ := r.server(t, r.pool, r.contract, idem.Config{}, faults.Hooks{AfterBusiness: faults.FailFirst(1)})
	scope := freshName(t, "rollback")
	key, p := r.freshKey(t), r.fresh(t, scope)
	failed := Serve(h, r.request(t, t.Context(), p, scope, key))
	if failed.Status < 500 {
		t.Fatalf("attempt failed before commit: got %s; want a 5xx", describe(failed))
	}
	r.wantEffects(t, scope, 0, "after an attempt rolled back after the business function ran (the business must write through the transaction it is given)")
	retry := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "retry of the rolled-back attempt", retry, false)
	r.wantEffects(t, scope, 1, "after the retry of the rolled-back attempt")
}
