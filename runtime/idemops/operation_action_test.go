package idemops_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// progressSeed has phased operations at each point of their life, their
// progress rows written as the runtime writes them, around the database's
// now(): one an attempt holds, one whose lease ran out, one halted for a
// person, one halted past retention, one halted without a recovery point
// (as no runtime writes it, but a record may hold), and one completed.
const progressSeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, operation, response_status,
    created_at, completed_at, expires_at, purge_at) VALUES
 ('m', 'k-live',     '\x00', 'in_progress',       '00000000-0000-4000-8000-000000000001', 'createPayment', NULL, now(), NULL,  now() + interval '1 day', now() + interval '2 days'),
 ('m', 'k-lapsed',   '\x00', 'in_progress',       '00000000-0000-4000-8000-000000000002', 'createPayment', NULL, now(), NULL,  now() + interval '1 day', now() + interval '2 days'),
 ('m', 'k-halted',   '\x00', 'requires_recovery', '00000000-0000-4000-8000-000000000003', 'createPayment', NULL, now(), now(), now() + interval '1 day', now() + interval '2 days'),
 ('m', 'k-old',      '\x00', 'requires_recovery', '00000000-0000-4000-8000-000000000004', 'createPayment', NULL, now() - interval '2 days', now(), now() - interval '1 day', now() + interval '1 day'),
 ('m', 'k-nopoint',  '\x00', 'requires_recovery', '00000000-0000-4000-8000-000000000005', 'createPayment', NULL, now(), now(), now() + interval '1 day', now() + interval '2 days'),
 ('m', 'k-done',     '\x00', 'completed',         '00000000-0000-4000-8000-000000000006', 'createPayment', 201,  now(), now(), now() + interval '1 day', now() + interval '2 days');
INSERT INTO support.idempotency_progress (scope, idempotency_key, operation, operation_id, fencing_token, lease_until, checkpoint,
    checkpoint_state, request, updated_at) VALUES
 ('m', 'k-live',   'createPayment', '00000000-0000-4000-8000-000000000001', 1, now() + interval '30 seconds', 'record_payment', '1', '{}', now()),
 ('m', 'k-lapsed', 'createPayment', '00000000-0000-4000-8000-000000000002', 3, now() - interval '1 second', 'charge_bank', '2:approved', '{}', now()),
 ('m', 'k-halted', 'createPayment', '00000000-0000-4000-8000-000000000003', 2, 'infinity', 'record_payment', '3', '{}', now()),
 ('m', 'k-old',    'createPayment', '00000000-0000-4000-8000-000000000004', 1, 'infinity', 'record_payment', '4', '{}', now());
`

const (
	opLive    = "00000000-0000-4000-8000-000000000001"
	opLapsed  = "00000000-0000-4000-8000-000000000002"
	opHalted  = "00000000-0000-4000-8000-000000000003"
	opOld     = "00000000-0000-4000-8000-000000000004"
	opNoPoint = "00000000-0000-4000-8000-000000000005"
	opDone    = "00000000-0000-4000-8000-000000000006"
)

// A phased operation's progress is derived with its state, on the
// database's clock: a lease that runs is live, one that ran out expired,
// and a halted operation's lease (which never runs out) halted; the list
// and show agree.
func TestProgressIsDerivedWithTheState(t *testing.T) {
	d := newDB(t)
	d.exec(t, progressSeed)
	c := d.client(t, idemops.Config{})
	ops, err := c.ListOperations(t.Context(), idemops.OperationFilter{Filter: idemops.Filter{Name: "createPayment"}})
	if err != nil {
		t.Fatal(err)
	}
	type shown struct {
		state    idemops.OperationState
		point    string
		lease    idemops.LeaseState
		until    bool
		attempts int64
	}
	want := map[string]shown{
		opLive:    {idemops.OperationInProgress, "record_payment", idemops.LeaseLive, true, 1},
		opLapsed:  {idemops.OperationInProgress, "charge_bank", idemops.LeaseExpired, true, 3},
		opHalted:  {idemops.OperationRequiresRecovery, "record_payment", idemops.LeaseHalted, false, 2},
		opOld:     {idemops.OperationExpired, "record_payment", idemops.LeaseHalted, false, 1},
		opNoPoint: {idemops.OperationRequiresRecovery, "", "", false, 0},
		opDone:    {idemops.OperationCompleted, "", "", false, 0},
	}
	if len(ops) != len(want) {
		t.Fatalf("%d operations of createPayment (the record's name), want %d", len(ops), len(want))
	}
	for _, op := range ops {
		var got shown
		got.state = op.State
		if p := op.Progress; p != nil {
			got = shown{op.State, p.RecoveryPoint, p.Lease, !p.LeaseUntil.IsZero(), p.Attempts}
		}
		if got != want[op.ID] {
			t.Errorf("operation %s: %+v, want %+v", op.ID, got, want[op.ID])
		}
		one, err := c.Operation(t.Context(), op.ID)
		if err != nil {
			t.Fatal(err)
		}
		if (one.Progress == nil) != (op.Progress == nil) || one.Progress != nil && *one.Progress != *op.Progress {
			t.Errorf("operation %s: Operation shows progress %+v, the list %+v", op.ID, one.Progress, op.Progress)
		}
	}
}

// Resume and ResolveOperation take only an operation that waits for a
// person, a valid action and an answer a retry can be given; every
// refusal says why and writes nothing.
func TestOperationActionsRefused(t *testing.T) {
	d := newDB(t)
	d.exec(t, progressSeed)
	c := d.client(t, idemops.Config{})
	ctx := t.Context()
	ok := idemops.Action{Actor: "alice", Reason: "checked with the bank"}
	done := idemops.Resolution{To: idemops.OperationCompleted, Answer: idemops.Answer{Status: 200, ContentType: "application/json", Body: []byte(`{}`)}}
	resume := func(id string, a idemops.Action) func() error {
		return func() error { _, err := c.Resume(ctx, id, a); return err }
	}
	resolve := func(id string, r idemops.Resolution) func() error {
		return func() error { _, err := c.ResolveOperation(ctx, id, r, ok); return err }
	}
	answer := func(a idemops.Answer) idemops.Resolution {
		return idemops.Resolution{To: idemops.OperationCompleted, Answer: a}
	}
	problem := func(p idemops.Problem) idemops.Resolution {
		return idemops.Resolution{To: idemops.OperationFailed, Problem: p}
	}
	for _, tc := range []struct {
		name string
		do   func() error
		want error
		says string
	}{
		{"resume in progress", resume(opLive, ok), idemops.ErrWrongState, "is in_progress: only an operation in requires_recovery waits for a person"},
		{"resume lease ran out", resume(opLapsed, ok), idemops.ErrWrongState, "by the next retry or the completer"},
		{"resolve lease ran out", resolve(opLapsed, done), idemops.ErrWrongState, "is in_progress"},
		{"resume completed", resume(opDone, ok), idemops.ErrWrongState, "is completed"},
		{"resolve completed", resolve(opDone, done), idemops.ErrWrongState, "is completed"},
		{"resume past retention", resume(opOld, ok), idemops.ErrWrongState, "past retention"},
		{"resume without a point", resume(opNoPoint, ok), idemops.ErrWrongState, "no recovery point"},
		{"unknown", resume("00000000-0000-4000-8000-000000000009", ok), idemops.ErrNotFound, "no operation"},
		{"not a uuid", resume("pay-1", ok), idemops.ErrInvalid, `operation id "pay-1" is not a UUID`},
		{"no id", resume("", ok), idemops.ErrInvalid, "needs its operation id"},
		{"no reason", resume(opHalted, idemops.Action{Actor: "alice", Reason: " "}), idemops.ErrInvalid, "needs an actor and a reason"},
		{"newline", resume(opHalted, idemops.Action{Actor: "alice", Reason: "ok\nsupport #2 by root: forged"}), idemops.ErrInvalid,
			"the reason has the control character U+000A at byte 2"},
		{"escape", resume(opHalted, idemops.Action{Actor: "al\x1b[2Kice", Reason: "x"}), idemops.ErrInvalid, "the actor has the control character U+001B"},
		{"bidi", resume(opHalted, idemops.Action{Actor: "alice\u202eroot", Reason: "x"}), idemops.ErrInvalid, "U+202E"},
		{"invalid utf-8", resume(opHalted, idemops.Action{Actor: "alice\xff", Reason: "x"}), idemops.ErrInvalid, "not valid UTF-8"},
		{"long actor", resume(opHalted, idemops.Action{Actor: strings.Repeat("a", idemops.MaxActorLength+1), Reason: "x"}), idemops.ErrInvalid,
			"the actor has 201 characters: at most 200"},
		{"long reason", resume(opHalted, idemops.Action{Actor: "alice", Reason: strings.Repeat("é", idemops.MaxReasonLength+1)}), idemops.ErrInvalid,
			"the reason has 2001 characters: at most 2000"},
		{"to in_progress", resolve(opHalted, idemops.Resolution{To: idemops.OperationInProgress}), idemops.ErrInvalid, "want completed or failed"},
		{"completed 4xx", resolve(opHalted, answer(idemops.Answer{Status: 409})), idemops.ErrInvalid, "a completed operation answers with a 2xx"},
		{"body without type", resolve(opHalted, answer(idemops.Answer{Status: 200, Body: []byte("x")})), idemops.ErrInvalid, "needs its content type"},
		{"bad type", resolve(opHalted, answer(idemops.Answer{Status: 200, ContentType: "json", Body: []byte("x")})), idemops.ErrInvalid, `content type "json"`},
		{"not json", resolve(opHalted, answer(idemops.Answer{Status: 200, ContentType: "application/problem+json", Body: []byte("{")})), idemops.ErrInvalid,
			"the body is not JSON"},
		{"204 body", resolve(opHalted, answer(idemops.Answer{Status: 204, ContentType: "text/plain", Body: []byte("x")})), idemops.ErrInvalid, "without a body"},
		{"huge body", resolve(opHalted, answer(idemops.Answer{Status: 200, ContentType: "text/plain", Body: make([]byte, idemops.MaxAnswerBody+1)})),
			idemops.ErrInvalid, "at most 1048576"},
		{"completed with a problem", resolve(opHalted, idemops.Resolution{To: idemops.OperationCompleted, Answer: done.Answer,
			Problem: idemops.Problem{Status: 402, Title: "x"}}), idemops.ErrInvalid, "leave Problem out"},
		{"failed with an answer", resolve(opHalted, idemops.Resolution{To: idemops.OperationFailed, Answer: done.Answer,
			Problem: idemops.Problem{Status: 402, Title: "x"}}), idemops.ErrInvalid, "leave Answer out"},
		{"failed 2xx", resolve(opHalted, problem(idemops.Problem{Status: 200, Title: "x"})), idemops.ErrInvalid, "4xx or 5xx"},
		{"no title", resolve(opHalted, problem(idemops.Problem{Status: 402})), idemops.ErrInvalid, "needs a title"},
		{"relative type", resolve(opHalted, problem(idemops.Problem{Status: 402, Title: "x", Type: "card-declined"})), idemops.ErrInvalid,
			"want an absolute URI"},
		{"title on two lines", resolve(opHalted, problem(idemops.Problem{Status: 402, Title: "a\nb"})), idemops.ErrInvalid, "the title has the control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %v, want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
	if audit, err := c.ListOperationAudit(ctx, idemops.AuditFilter{}); err != nil || len(audit) != 0 {
		t.Errorf("audit after refusals: %+v, %v", audit, err)
	}
	op, err := c.Operation(ctx, opHalted)
	if err != nil || op.State != idemops.OperationRequiresRecovery || op.Progress == nil || op.Progress.Lease != idemops.LeaseHalted {
		t.Errorf("the halted operation after refusals: %+v, %v", op, err)
	}
}

// A halted operation past retention is resolved all the same, so that the
// sweeper can drop it: its retries are answered operation-expired, and
// only a decided record is swept. One without a recovery point is
// resolved too. Both are audited.
func TestResolvingWhatCannotBeResumed(t *testing.T) {
	d := newDB(t)
	d.exec(t, progressSeed)
	c := d.client(t, idemops.Config{})
	ctx := t.Context()
	for _, id := range []string{opOld, opNoPoint} {
		entry, err := c.ResolveOperation(ctx, id, idemops.Resolution{To: idemops.OperationFailed,
			Problem: idemops.Problem{Status: http.StatusBadGateway, Title: "The bank did not answer"}}, idemops.Action{Actor: "carol", Reason: "stale"})
		if err != nil || entry.To != idemops.OperationFailed || entry.From != idemops.OperationRequiresRecovery {
			t.Errorf("resolving %s: %+v, %v", id, entry, err)
		}
	}
	var progress, failed int
	if err := d.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM support.idempotency_progress WHERE operation_id = $1),
	    (SELECT count(*) FROM support.idempotency_record WHERE state = 'failed' AND response_status = 502
	        AND response_headers = '{"Content-Type": ["application/problem+json"]}'
	        AND convert_from(response_body, 'UTF8') = '{"type":"about:blank","title":"The bank did not answer","status":502}')`, opOld).
		Scan(&progress, &failed); err != nil {
		t.Fatal(err)
	}
	if progress != 0 || failed != 2 {
		t.Errorf("%d progress rows left and %d records failed with the problem; want 0 and 2", progress, failed)
	}
	if audit, err := c.ListOperationAudit(ctx, idemops.AuditFilter{Actor: "carol"}); err != nil || len(audit) != 2 ||
		audit[0].OperationID != opNoPoint || audit[1].OperationID != opOld {
		t.Errorf("carol's audit, newest first: %+v, %v", audit, err)
	}
}

// Two people act on one halted operation at once, one resuming it and one
// resolving it: the record's lock lets one act; the other finds it moved
// and writes nothing.
func TestConcurrentOperationActionsActOnce(t *testing.T) {
	d := newDB(t)
	d.exec(t, progressSeed)
	c := d.client(t, idemops.Config{})
	errs := idemtest.Concurrently(2, func(i int) error {
		a := idemops.Action{Actor: []string{"alice", "bob"}[i], Reason: "raced"}
		if i == 0 {
			_, err := c.Resume(t.Context(), opHalted, a)
			return err
		}
		_, err := c.ResolveOperation(t.Context(), opHalted, idemops.Resolution{To: idemops.OperationCompleted,
			Answer: idemops.Answer{Status: http.StatusNoContent}}, a)
		return err
	})
	var acted, refused int
	for _, err := range errs {
		switch {
		case err == nil:
			acted++
		case errors.Is(err, idemops.ErrWrongState):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	audit, err := c.ListOperationAudit(t.Context(), idemops.AuditFilter{OperationID: opHalted})
	if acted != 1 || refused != 1 || err != nil || len(audit) != 1 {
		t.Fatalf("%d acted, %d refused, %d audit rows (%v); want 1, 1, 1", acted, refused, len(audit), err)
	}
	op, err := c.Operation(t.Context(), opHalted)
	if err != nil {
		t.Fatal(err)
	}
	if want := audit[0].To; op.State != want {
		t.Errorf("the operation is %s, but the one action moved it to %s", op.State, want)
	}
}
