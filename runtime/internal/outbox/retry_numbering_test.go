package outbox_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemops"
)

// numbered records the attempt number of every call and answers not done.
type numbered struct {
	mu       sync.Mutex
	attempts []int
}

func (n *numbered) Do(_ context.Context, c idem.EffectCall) idem.EffectOutcome {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.attempts = append(n.attempts, c.Attempt)
	return idem.EffectNotDone(errRefused)
}

func (n *numbered) Verify(context.Context, string) idem.VerifyOutcome { return idem.VerifyNotDone }

// A support retry of a dead effect gets a fresh attempt budget, but its
// calls continue the attempt numbers: the provider and the history tell
// the retry's first call (attempt 3) from the effect's first (attempt 1),
// and no two history rows share a number.
func TestSupportRetryContinuesTheAttemptNumbers(t *testing.T) {
	_, pool := newDB(t)
	enqueue(t, pool, 1, "retry")
	p := &numbered{}
	runUntil(t, pool, p, idem.EffectEventDead, 2)
	ops, err := idemops.New(pool, idemops.Config{})
	if err != nil {
		t.Fatal(err)
	}
	effects, err := ops.ListEffects(t.Context(), idemops.EffectFilter{State: idemops.EffectDead})
	if err != nil || len(effects) != 1 {
		t.Fatalf("dead effects: %v, %v", effects, err)
	}
	if _, err := ops.Retry(t.Context(), effects[0].Key, idemops.Action{Actor: "alice", Reason: "smtp is back"}); err != nil {
		t.Fatal(err)
	}
	runUntil(t, pool, p, idem.EffectEventDead, 2)
	if want := []int{1, 2, 3, 4}; !slices.Equal(p.attempts, want) {
		t.Errorf("the provider was called with attempts %v, want %v", p.attempts, want)
	}
	op, err := ops.Operation(t.Context(), effects[0].OperationID)
	if err != nil {
		t.Fatal(err)
	}
	var numbers []int
	for _, a := range op.Effects[0].History {
		numbers = append(numbers, a.Number)
	}
	if want := []int{1, 2, 3, 4}; !slices.Equal(numbers, want) || op.Effects[0].Attempts != 2 {
		t.Errorf("history numbers %v and %d attempts spent, want %v and 2 (the retry's budget)", numbers, op.Effects[0].Attempts, want)
	}
}
