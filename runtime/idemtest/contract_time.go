package idemtest

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/internal/faults"
	"github.com/idemgen/idemgen/runtime/internal/httpapi"
)

// shortWaitTimeout is the wait-timeout of the wait-timeout scenario when
// the contract's is longer: the duplicate waits this long for the held
// request before its 409.
const shortWaitTimeout = 300 * time.Millisecond

// sweepOptions are the retention scenario's sweeps: small batches, and no
// warning about the fake clock, which moves ahead of the database's by
// design.
var sweepOptions = idem.MaintainOptions{BatchSize: 100, MaxClockSkew: math.MaxInt64}

// pastWaitTimeout holds a first request inside its transaction and wants a
// duplicate to get 409 operation-in-progress with Retry-After, and the
// first to complete once released. The wait-timeout is shortened to
// shortWaitTimeout; under concurrency reject the 409 comes at once.
func (r *contractRun[T]) pastWaitTimeout(t *testing.T) {
	contract := r.contract
	if contract.Concurrency == idemimpl.ConcurrencyWait && contract.WaitTimeout > shortWaitTimeout {
		contract.WaitTimeout = shortWaitTimeout
		t.Logf("wait-timeout shortened from %s to %s to keep the suite fast", r.contract.WaitTimeout, shortWaitTimeout)
	}
	hold := faults.NewHold()
	held, _ := r.server(t, r.pool, contract, idem.Config{}, faults.Hooks{AfterBusiness: hold.Hook})
	plain, _ := r.server(t, r.pool, contract, idem.Config{}, faults.Hooks{})
	scope := freshName(t, "wait")
	key, p := r.freshKey(t), r.fresh(t, scope)

	var first Response
	done := make(chan struct{})
	firstReq := r.request(t, t.Context(), p, scope, key)
	go func() {
		defer close(done)
		first = Serve(held, firstReq)
	}()
	defer func() {
		hold.Release()
		<-done
	}()
	select {
	case <-hold.Reached():
	case <-done:
		t.Fatalf("first request: got %s without reaching the AfterBusiness hook", describe(first))
	}
	r.wantEffects(t, scope, 0, "while the first request is held before its commit (the business must write through the transaction it is given)")

	dup := Serve(plain, r.request(t, t.Context(), p, scope, key))
	wantProblem(t, "duplicate past the wait-timeout", dup, http.StatusConflict, idem.ProblemInProgress)
	wantRetryAfter(t, "duplicate past the wait-timeout", dup)

	hold.Release()
	<-done
	wantAccepted(t, "held first request, released", first, false)
	r.wantEffects(t, scope, 1, "after the held request completed")
	retry := Serve(plain, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "retry after the held request completed", retry, true)
	wantSameAnswer(t, "retry after the held request completed", first, retry)
}

// retention moves time past the contract's retention and tombstone
// periods, sweeping on the way. Deadlines are the database's, so time
// moves there (Age, on this scenario's scope only: the sweeps, on the
// database's clock, leave the other scenarios' records alone) and on the
// executor's fake clock, which times its cached replays.
func (r *contractRun[T]) retention(t *testing.T) {
	ret, tomb := r.contract.Retention, r.contract.Tombstone
	clock := NewFakeClock(time.Now().UTC())
	h, exec := r.server(t, r.pool, r.contract, idem.Config{Clock: clock}, faults.Hooks{})
	scope := freshName(t, "retention")
	key, p := r.freshKey(t), r.fresh(t, scope)
	later := func(d time.Duration) {
		t.Helper()
		clock.Advance(d)
		if err := Age(t.Context(), r.pool, scope, d); err != nil {
			t.Fatal(err)
		}
	}

	first := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "first request", first, false)
	within := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantAccepted(t, "retry within retention", within, true)

	later(ret + time.Second)
	late := Serve(h, r.request(t, t.Context(), p, scope, key))
	wantProblem(t, "retry past retention ("+ret.String()+")", late, http.StatusConflict, idem.ProblemExpired)
	r.wantEffects(t, scope, 1, "after a retry past retention")

	if _, err := exec.Sweep(t.Context(), sweepOptions); err != nil {
		t.Fatalf("sweep past retention: %v", err)
	}
	if state := r.recordState(t, scope, key); state != "tombstone" {
		t.Fatalf("after a sweep past retention: record state %q, want tombstone", state)
	}
	late = Serve(h, r.request(t, t.Context(), p, scope, key))
	wantProblem(t, "retry of a tombstone", late, http.StatusConflict, idem.ProblemExpired)
	r.wantEffects(t, scope, 1, "after a retry of a tombstone")

	later(tomb)
	if _, err := exec.Sweep(t.Context(), sweepOptions); err != nil {
		t.Fatalf("sweep past the tombstone period: %v", err)
	}
	if state := r.recordState(t, scope, key); state != "" {
		t.Fatalf("after a sweep past retention+tombstone (%s+%s): record state %q, want the record deleted", ret, tomb, state)
	}
	again := p
	if r.c.NaturalKey {
		again = r.fresh(t, scope) // the first entity still exists under its natural key
	}
	res := Serve(h, r.request(t, t.Context(), again, scope, key))
	if wantNewOperation(t, "the key after its record was deleted (forgotten: a new operation)", res) {
		r.wantEffects(t, scope, 2, "after the key ran again past its tombstone period")
	} else {
		r.wantEffects(t, scope, 1, "after the business refused the forgotten key's new operation")
	}
}

// wantNewOperation fails t unless res is the answer of a new operation:
// not a replay and not a refusal of the idempotency layer. The business
// may accept it (true) or refuse it with a 4xx of its own (false), as a
// service whose table has its own unique constraint does.
func wantNewOperation(t *testing.T, what string, res Response) bool {
	t.Helper()
	if res.Status >= 400 && res.Status < 500 && !isReplay(res) {
		var p httpapi.Problem
		_ = json.Unmarshal(res.Body, &p)
		switch p.Type {
		case idem.ProblemExpired, idem.ProblemInProgress, idem.ProblemFingerprint, idem.ProblemRequiresRecovery:
			t.Fatalf("%s: got %s; want a new operation, which the business may accept or refuse", what, describe(res))
		}
		t.Logf("%s: the business refused it: %s", what, describe(res))
		return false
	}
	wantAccepted(t, what, res, false)
	return true
}

// recordState returns the state of the record holding (scope, key), ""
// when there is none.
func (r *contractRun[T]) recordState(t *testing.T, scope, key string) string {
	t.Helper()
	var state string
	err := r.pool.QueryRow(t.Context(), "SELECT state FROM idempotency_record WHERE scope = $1 AND idempotency_key = $2", scope, key).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Fatalf("idemtest: reading the record: %v", err)
	}
	return state
}
