package idemtest

import (
	"bytes"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/internal/faults"
)

// replayAfterChange changes the resource a committed request created
// (Fixture.Touch) and retries the request. Under replay: stored the retry
// gets the first answer, byte for byte; under replay: current it gets a
// replay (Idempotent-Replayed: true) of the resource as it is now, which
// differs from the first answer, and a second retry gets the same. Either
// way nothing runs again.
func (r *contractRun[T]) replayAfterChange(t *testing.T) {
	if r.c.Fixture.Touch == nil {
		t.Skip("the fixture has no Touch: nothing changes the resource after the first answer")
	}
	h, _ := r.server(t, r.pool, r.contract, idem.Config{}, faults.Hooks{})
	scope := freshName(t, "touched")
	key, p := r.freshKey(t), r.fresh(t, scope)
	first := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "first request", first, false)
	if err := r.c.Fixture.Touch(t.Context(), r.pool, scope); err != nil {
		t.Fatalf("Fixture.Touch: %v", err)
	}
	retry := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "retry after the resource changed", retry, true)
	if !r.contract.ReplayCurrent {
		wantSameAnswer(t, "retry after the resource changed (replay: stored)", first, retry)
	} else {
		if bytes.Equal(retry.Body, first.Body) {
			t.Fatalf("retry after the resource changed (replay: current): got the first answer again, %s; want the resource as it is now (the Current method must read it, not echo the stored answer)", retry.Body)
		}
		again := Serve(h, r.request(t, t.Context(), p, scope, key))
		wantAccepted(t, "second retry after the resource changed", again, true)
		wantSameAnswer(t, "second retry after the resource changed (replay: current)", retry, again)
	}
	r.wantEffects(t, scope, 1, "after the retries of a request whose resource changed")
}
