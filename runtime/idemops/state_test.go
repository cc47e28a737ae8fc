package idemops_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/runtime/idemops"
)

// stateSeed has one record in each stored state and one effect in each
// stored state, with times around the database's now(): a completed
// record past retention, a tombstone, a pending effect whose lease ran out
// and one whose lease holds.
const stateSeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, response_status,
    created_at, completed_at, expires_at, purge_at) VALUES
 ('s', 'k-progress',  '\x00', 'in_progress',       '00000000-0000-4000-8000-000000000001', NULL, now() - interval '6 min', NULL,  now() + interval '1 day', now() + interval '2 days'),
 ('s', 'k-completed', '\x00', 'completed',         '00000000-0000-4000-8000-000000000002', 201,  now() - interval '5 min', now(), now() + interval '1 day', now() + interval '2 days'),
 ('s', 'k-failed',    '\x00', 'failed',            '00000000-0000-4000-8000-000000000003', 409,  now() - interval '4 min', now(), now() + interval '1 day', now() + interval '2 days'),
 ('s', 'k-recovery',  '\x00', 'requires_recovery', '00000000-0000-4000-8000-000000000004', NULL, now() - interval '3 min', NULL,  now() + interval '1 day', now() + interval '2 days'),
 ('s', 'k-expired',   '\x00', 'completed',         '00000000-0000-4000-8000-000000000005', 201,  now() - interval '2 days', now(), now() - interval '1 hour', now() + interval '1 day'),
 ('s', 'k-tomb',      '\x00', 'tombstone',         '00000000-0000-4000-8000-000000000006', NULL, now() - interval '9 days', now(), now() + interval '1 day', now() + interval '1 day');
INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, state, attempts,
    available_at, created_at, operation, lease_until, leased_by) VALUES
 ('s', '00000000-0000-4000-8000-000000000002', 1, 'e', 'op2/e/1', 'retry', 'pending', 0, now(), now(), 'createOrder', NULL, NULL),
 ('s', '00000000-0000-4000-8000-000000000002', 2, 'e', 'op2/e/2', 'retry', 'pending', 1, now() - interval '1 min', now(), 'createOrder', now() - interval '1 min', 'w-gone'),
 ('s', '00000000-0000-4000-8000-000000000002', 3, 'e', 'op2/e/3', 'retry', 'pending', 1, now() + interval '1 hour', now(), 'createOrder', now() + interval '1 hour', 'w-live'),
 ('s', '00000000-0000-4000-8000-000000000002', 4, 'e', 'op2/e/4', 'retry', 'done', 1, now(), now(), 'createOrder', NULL, 'w-live'),
 ('s', '00000000-0000-4000-8000-000000000002', 5, 'e', 'op2/e/5', 'retry', 'failed', 1, now(), now(), 'createOrder', NULL, 'w-live'),
 ('s', '00000000-0000-4000-8000-000000000002', 6, 'e', 'op2/e/6', 'halt', 'requires_recovery', 2, now(), now(), 'createOrder', NULL, 'w-live'),
 ('s', '00000000-0000-4000-8000-000000000002', 7, 'e', 'op2/e/7', 'retry', 'dead', 10, now(), now(), 'createOrder', NULL, 'w-live');
`

// Every view gets its states from one derivation: a record past retention
// is expired until the sweeper makes it a tombstone, an effect held by a
// live lease is running and one whose lease ran out is pending again; a
// state filter selects exactly the rows shown in that state.
func TestStatesAreDerivedOnceForListsAndFilters(t *testing.T) {
	d := newDB(t)
	d.exec(t, stateSeed)
	c := d.client(t, idemops.Config{})
	ctx := t.Context()

	ops, err := c.ListOperations(ctx, idemops.OperationFilter{})
	if err != nil {
		t.Fatal(err)
	}
	gotOps := map[string]idemops.OperationState{}
	for _, op := range ops {
		gotOps[op.ID[len(op.ID)-1:]] = op.State
	}
	wantOps := map[string]idemops.OperationState{
		"1": idemops.OperationInProgress, "2": idemops.OperationCompleted, "3": idemops.OperationFailed,
		"4": idemops.OperationRequiresRecovery, "5": idemops.OperationExpired, "6": idemops.OperationTombstone,
	}
	if diff := cmp.Diff(wantOps, gotOps); diff != "" {
		t.Errorf("operation states (-want +got):\n%s", diff)
	}
	for _, s := range idemops.OperationStates() {
		filtered, err := c.ListOperations(ctx, idemops.OperationFilter{State: s})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		for _, st := range wantOps {
			if st == s {
				n++
			}
		}
		if len(filtered) != n || (n == 1 && filtered[0].State != s) {
			t.Errorf("--state %s lists %d operations, want %d", s, len(filtered), n)
		}
	}

	effects, err := c.ListEffects(ctx, idemops.EffectFilter{})
	if err != nil {
		t.Fatal(err)
	}
	gotEffects := map[string]idemops.EffectState{}
	for _, e := range effects {
		gotEffects[e.Key] = e.State
	}
	wantEffects := map[string]idemops.EffectState{
		"op2/e/1": idemops.EffectPending, "op2/e/2": idemops.EffectPending, "op2/e/3": idemops.EffectRunning,
		"op2/e/4": idemops.EffectDone, "op2/e/5": idemops.EffectFailed, "op2/e/6": idemops.EffectRequiresRecovery,
		"op2/e/7": idemops.EffectDead,
	}
	if diff := cmp.Diff(wantEffects, gotEffects); diff != "" {
		t.Errorf("effect states (-want +got):\n%s", diff)
	}
	for _, s := range idemops.EffectStates() {
		filtered, err := c.ListEffects(ctx, idemops.EffectFilter{State: s})
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for k, st := range wantEffects {
			if st == s {
				want = append(want, k)
			}
		}
		for _, e := range filtered {
			got = append(got, e.Key)
		}
		if diff := cmp.Diff(want, got, cmpSorted); diff != "" {
			t.Errorf("--state %s (-want +got):\n%s", s, diff)
		}
	}

	completed, err := c.ListOperations(ctx, idemops.OperationFilter{Filter: idemops.Filter{OperationID: "00000000-0000-4000-8000-000000000002"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(completed) != 1 || completed[0].Name != "createOrder" || completed[0].EffectCount != 7 || completed[0].EffectsWaiting != 2 ||
		completed[0].Status != 201 {
		t.Errorf("the completed operation: %+v; want createOrder, status 201, 7 effects, 2 waiting", completed)
	}
	running := effects[2]
	if running.Key != "op2/e/3" || running.LeasedBy != "w-live" || running.LeaseUntil.IsZero() {
		t.Errorf("the running effect: %+v; want leased by w-live with its lease's end", running)
	}
}

// cmpSorted compares string slices as sets of lines.
var cmpSorted = cmp.Transformer("sorted", func(s []string) map[string]bool {
	m := map[string]bool{}
	for _, v := range s {
		m[v] = true
	}
	return m
})

// Filters that cannot be met are refused before any query, naming the
// value and what is wanted.
func TestFiltersAreChecked(t *testing.T) {
	c, err := idemops.New(unreachable{}, idemops.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []idemops.EffectFilter{
		{State: "stuck"},
		{Filter: idemops.Filter{Key: "a b"}},
		{Filter: idemops.Filter{Key: `"unterminated`}},
		{Filter: idemops.Filter{OperationID: "42"}},
		{Filter: idemops.Filter{Limit: -1}},
		{Filter: idemops.Filter{OlderThan: -1}},
		{Filter: idemops.Filter{Link: "/orders/4 2"}},
		{Filter: idemops.Filter{Link: "/orders/42\x1b[2J"}},
		{Filter: idemops.Filter{Link: " 42"}},
		{Filter: idemops.Filter{Link: strings.Repeat("x", 2049)}},
	} {
		if _, err := c.ListEffects(t.Context(), f); !errors.Is(err, idemops.ErrInvalid) {
			t.Errorf("ListEffects(%+v) = %v, want ErrInvalid", f, err)
		}
	}
	if _, err := c.ListOperations(t.Context(), idemops.OperationFilter{State: "running"}); !errors.Is(err, idemops.ErrInvalid) ||
		!strings.Contains(err.Error(), `state "running": want one of [in_progress completed`) {
		t.Errorf("an effect state filtering operations: %v", err)
	}
}
