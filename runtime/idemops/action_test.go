package idemops_test

import (
	"errors"
	"testing"

	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// actionSeed: an operation whose stock reservation halted and whose email
// died, and one whose record was swept, its effect done.
const actionSeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, response_status,
    created_at, completed_at, expires_at, purge_at) VALUES
 ('acme', 'order-1', '\x00', 'completed', '11111111-1111-4111-8111-111111111111', 201, now(), now(), now() + interval '1 day', now() + interval '2 days');
INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, state, attempts,
    available_at, created_at, operation, fencing_token, last_outcome, last_error) VALUES
 ('acme', '11111111-1111-4111-8111-111111111111', 1, 'reserve_stock', '11111111-1111-4111-8111-111111111111/reserve_stock/1',
  'halt', 'requires_recovery', 2, now(), now(), 'createOrder', 2, 'halted', 'lost'),
 ('acme', '11111111-1111-4111-8111-111111111111', 2, 'email', '11111111-1111-4111-8111-111111111111/email/2',
  'retry', 'dead', 10, now(), now(), 'createOrder', 10, 'not_done', 'smtp 421'),
 ('acme', '22222222-2222-4222-8222-222222222222', 1, 'email', '22222222-2222-4222-8222-222222222222/email/1',
  'retry', 'done', 1, now(), now(), 'createOrder', 1, 'done', NULL);
INSERT INTO support.idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, kind, started_at, finished_at, outcome)
VALUES ('acme', '11111111-1111-4111-8111-111111111111', 1, 1, 1, 'w-1', NULL, now(), now(), 'lost'),
       ('acme', '11111111-1111-4111-8111-111111111111', 1, 2, 2, 'w-2', 'none', now(), now(), 'halted');
`

const (
	halted = "11111111-1111-4111-8111-111111111111/reserve_stock/1"
	dead   = "11111111-1111-4111-8111-111111111111/email/2"
)

// Resolve and Retry move only what waits for a person, write their audit
// row with the move, and show up in the operation's history.
func TestResolveAndRetryAreAudited(t *testing.T) {
	d := newDB(t)
	d.exec(t, actionSeed)
	c := d.client(t, idemops.Config{})
	ctx := t.Context()
	alice := idemops.Action{Actor: "alice", Reason: "the warehouse confirmed the reservation"}

	entry, err := c.Resolve(ctx, halted, idemops.EffectDone, alice)
	if err != nil {
		t.Fatal(err)
	}
	if entry.From != idemops.EffectRequiresRecovery || entry.To != idemops.EffectDone || entry.ID == 0 || entry.At.IsZero() ||
		entry.Scope != "acme" || entry.OperationID != "11111111-1111-4111-8111-111111111111" || entry.Seq != 1 {
		t.Errorf("Resolve's audit entry: %+v", entry)
	}
	if _, err := c.Resolve(ctx, halted, idemops.EffectFailed, alice); !errors.Is(err, idemops.ErrWrongState) {
		t.Errorf("resolving a done effect: %v, want ErrWrongState", err)
	}
	retried, err := c.Retry(ctx, dead, idemops.Action{Actor: "bob", Reason: "smtp is back"})
	if err != nil || retried.From != idemops.EffectDead || retried.To != idemops.EffectPending {
		t.Fatalf("Retry: %+v, %v", retried, err)
	}

	op, err := c.Operation(ctx, "11111111-1111-4111-8111-111111111111")
	if err != nil {
		t.Fatal(err)
	}
	if len(op.Effects) != 2 {
		t.Fatalf("%d effects, want 2", len(op.Effects))
	}
	stock, email := op.Effects[0], op.Effects[1]
	if stock.State != idemops.EffectDone || len(stock.History) != 2 || stock.History[1].Outcome != "halted" ||
		len(stock.Audit) != 1 || stock.Audit[0] != entry {
		t.Errorf("the resolved effect: %+v", stock)
	}
	if email.State != idemops.EffectPending || email.Attempts != 0 || email.LastOutcome != "support_pending" ||
		len(email.Audit) != 1 || email.Audit[0] != retried {
		t.Errorf("the retried effect: %+v", email)
	}
	all, err := c.ListAudit(ctx, idemops.AuditFilter{})
	if err != nil || len(all) != 2 || all[0] != retried || all[1] != entry {
		t.Errorf("ListAudit: %+v, %v; want the retry, then the resolution", all, err)
	}
	bobs, err := c.ListAudit(ctx, idemops.AuditFilter{Actor: "bob"})
	if err != nil || len(bobs) != 1 || bobs[0] != retried {
		t.Errorf("ListAudit(bob): %+v, %v", bobs, err)
	}
}

// An action that cannot be taken writes nothing and says why.
func TestActionsRefused(t *testing.T) {
	d := newDB(t)
	d.exec(t, actionSeed)
	c := d.client(t, idemops.Config{})
	ctx := t.Context()
	ok := idemops.Action{Actor: "alice", Reason: "checked"}
	for _, tc := range []struct {
		name string
		do   func() error
		want error
	}{
		{"no reason", func() error { _, err := c.Retry(ctx, dead, idemops.Action{Actor: "alice", Reason: " "}); return err }, idemops.ErrInvalid},
		{"no actor", func() error { _, err := c.Retry(ctx, dead, idemops.Action{Reason: "x"}); return err }, idemops.ErrInvalid},
		{"control character", func() error {
			_, err := c.Retry(ctx, dead, idemops.Action{Actor: "alice", Reason: "smtp is back\r\nsupport #9: forged"})
			return err
		}, idemops.ErrInvalid},
		{"to pending", func() error { _, err := c.Resolve(ctx, dead, idemops.EffectPending, ok); return err }, idemops.ErrInvalid},
		{"malformed key", func() error { _, err := c.Retry(ctx, "order-1", ok); return err }, idemops.ErrInvalid},
		{"bad seq", func() error {
			_, err := c.Retry(ctx, "11111111-1111-4111-8111-111111111111/email/0", ok)
			return err
		}, idemops.ErrInvalid},
		{"unknown effect", func() error {
			_, err := c.Retry(ctx, "11111111-1111-4111-8111-111111111111/email/3", ok)
			return err
		}, idemops.ErrNotFound},
		{"wrong name", func() error {
			_, err := c.Retry(ctx, "11111111-1111-4111-8111-111111111111/sms/2", ok)
			return err
		}, idemops.ErrNotFound},
		{"done", func() error {
			_, err := c.Retry(ctx, "22222222-2222-4222-8222-222222222222/email/1", ok)
			return err
		}, idemops.ErrWrongState},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
	if audit, err := c.ListAudit(ctx, idemops.AuditFilter{}); err != nil || len(audit) != 0 {
		t.Errorf("audit after refusals: %+v, %v", audit, err)
	}
}

// Two people resolving one effect at once: the row lock lets one move it;
// the other finds it moved and writes nothing.
func TestConcurrentResolutionsMoveOnce(t *testing.T) {
	d := newDB(t)
	d.exec(t, actionSeed)
	c := d.client(t, idemops.Config{})
	errs := idemtest.Concurrently(2, func(i int) error {
		to := []idemops.EffectState{idemops.EffectDone, idemops.EffectFailed}[i]
		_, err := c.Resolve(t.Context(), halted, to, idemops.Action{Actor: string(to), Reason: "raced"})
		return err
	})
	var moved, refused int
	for _, err := range errs {
		switch {
		case err == nil:
			moved++
		case errors.Is(err, idemops.ErrWrongState):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	audit, err := c.ListAudit(t.Context(), idemops.AuditFilter{})
	if moved != 1 || refused != 1 || err != nil || len(audit) != 1 {
		t.Errorf("%d moved, %d refused, %d audit rows (%v); want 1, 1, 1", moved, refused, len(audit), err)
	}
}

// An operation whose record the sweeper deleted is still shown by id
// through its effects, as swept, with no key.
func TestSweptOperationShownByItsEffects(t *testing.T) {
	d := newDB(t)
	d.exec(t, actionSeed)
	c := d.client(t, idemops.Config{KeyHashSecret: secret})
	op, err := c.Operation(t.Context(), "22222222-2222-4222-8222-222222222222")
	if err != nil {
		t.Fatal(err)
	}
	if op.State != idemops.OperationSwept || op.Scope != "acme" || op.Name != "createOrder" || op.KeyHash != "" ||
		op.EffectCount != 1 || len(op.Effects) != 1 || op.Effects[0].State != idemops.EffectDone {
		t.Errorf("the swept operation: %+v", op)
	}
	if _, err := c.Operation(t.Context(), "33333333-3333-4333-8333-333333333333"); !errors.Is(err, idemops.ErrNotFound) {
		t.Errorf("an unknown operation: %v, want ErrNotFound", err)
	}
}
