package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/idemimpl"
	"github.com/idemgen/idemgen/runtime/idemtest"
)

// opsPhasedSeed has phased payments as the runtime leaves them, with
// fixed ids and times: one halted on the
// bank's lost answer after recording the payment, one an attempt holds
// (its lease runs until 2099), and one whose lease ran out after its
// third attempt charged the bank. The runtime itself halting, resumed
// and resolved operations being retried are proven in runtime/idemops'
// tests, with a real phased handler, which this package cannot import.
const opsPhasedSeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, operation,
    created_at, completed_at, expires_at, purge_at) VALUES
 ('merchant-1', 'pay-halted', '\x07', 'requires_recovery', '66666666-6666-4666-8666-666666666666', 'createPayment',
  '2026-11-30 12:00:00+00', '2026-11-30 12:00:01+00', '2099-12-01 12:00:00+00', '2099-12-31 12:00:00+00'),
 ('merchant-1', 'pay-running', '\x08', 'in_progress', '77777777-7777-4777-8777-777777777777', 'createPayment',
  '2026-11-30 12:10:00+00', NULL, '2099-12-01 12:10:00+00', '2099-12-31 12:10:00+00'),
 ('merchant-1', 'pay-lapsed', '\x09', 'in_progress', '88888888-8888-4888-8888-888888888888', 'createPayment',
  '2026-11-30 12:20:00+00', NULL, '2099-12-01 12:20:00+00', '2099-12-31 12:20:00+00');
INSERT INTO support.idempotency_progress (scope, idempotency_key, operation, operation_id, fencing_token, lease_until,
    checkpoint, checkpoint_state, request, updated_at) VALUES
 ('merchant-1', 'pay-halted', 'createPayment', '66666666-6666-4666-8666-666666666666', 1, 'infinity',
  'record_payment', '1', convert_to('{"method":"POST","route":"/payments","header":{"Content-Type":["application/json"],' ||
  '"Idempotency-Key":["pay-halted"]},"body":"' || encode(convert_to('{"amount":100,"card_token":"tok_1"}', 'UTF8'), 'base64') || '"}', 'UTF8'),
  '2026-11-30 12:00:01+00'),
 ('merchant-1', 'pay-running', 'createPayment', '77777777-7777-4777-8777-777777777777', 1, '2099-12-01 00:00:00+00',
  'record_payment', '2', '\x00', '2026-11-30 12:10:00+00'),
 ('merchant-1', 'pay-lapsed', 'createPayment', '88888888-8888-4888-8888-888888888888', 3, '2026-11-30 12:20:30+00',
  'charge_bank', '3:approved', '\x00', '2026-11-30 12:20:00+00');
`

const (
	haltedPayment  = "66666666-6666-4666-8666-666666666666"
	runningPayment = "77777777-7777-4777-8777-777777777777"
	lapsedPayment  = "88888888-8888-4888-8888-888888888888"
)

// opsPhasedDB is opsDB with the phased payments seeded too.
func opsPhasedDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), opsPhasedSeed); err != nil {
		t.Fatal(err)
	}
	return pool
}

// scalar reads one value.
func scalar[T any](t *testing.T, pool *pgxpool.Pool, sql string, args ...any) T {
	t.Helper()
	var v T
	if err := pool.QueryRow(t.Context(), sql, args...).Scan(&v); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	return v
}

// ops show tells where a phased operation stands: its last recovery
// point, its lease (halted, live until, ran out at), its attempts.
func TestOpsShowsAPhasedOperationsProgress(t *testing.T) {
	opsPhasedDB(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"show-halted.txt", []string{"show", "--schema", "support", haltedPayment}},
		{"show-halted.json", []string{"show", "--schema", "support", "--format", "json", haltedPayment}},
		{"list-phased.json", []string{"list", "--schema", "support", "--format", "json", "--operation", "createPayment"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := ops(c.args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
	for id, want := range map[string]string{
		runningPayment: "lease           live until 2099-12-01T00:00:00Z\nattempts        1\n",
		lapsedPayment: "recovery point  charge_bank\nlease           ran out at 2026-11-30T12:20:30Z: the next retry or the completer takes it over\n" +
			"attempts        3\n",
	} {
		code, out, errOut := ops("show", "--schema", "support", id)
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("ops show %s: exit %d, %s%s; want it to say\n%s", id, code, out, errOut, want)
		}
	}
}

// ops resume hands the halted payment back to the service: one audit row
// with the actor and reason, the record in progress, its lease run out
// and the actor recorded as who resumed it, which the service's next
// attempt reads to call the bank again (runtime/idemops'
// TestResumedOperationIsCompletedByTheNextRetryWithTheSameStepKey). ops
// show and ops audit show the action; a second resume is refused.
func TestOpsResumeAuditsAndHandsTheOperationBack(t *testing.T) {
	pool := opsPhasedDB(t)
	code, out, errOut := ops("resume", "--schema", "support", haltedPayment, "--actor", "alice", "--reason", "the bank has no charge under the step key")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "operation " + haltedPayment + ": requires_recovery -> in_progress (audit #1, by alice: the bank has no charge under the step key)\n" +
		"the next retry, or the service's completer, takes it over from its last recovery point and calls again with the same step key\n"
	if out != want {
		t.Errorf("ops resume said\n%s\nwant\n%s", out, want)
	}
	if got := scalar[string](t, pool, `SELECT r.state || ' ' || (p.lease_until <= now())::text || ' ' || p.resumed_by || ' ' || p.checkpoint
	    FROM support.idempotency_record AS r JOIN support.idempotency_progress AS p USING (scope, idempotency_key)
	    WHERE r.operation_id = $1`, haltedPayment); got != "in_progress true alice record_payment" {
		t.Errorf("after the resume: %s; want in_progress, its lease run out, resumed by alice, at record_payment", got)
	}
	if got := scalar[string](t, pool, `SELECT string_agg(actor || ' ' || from_state || ' ' || to_state || ' ' || reason, '; ')
	    FROM support.idempotency_operation_audit`); got != "alice requires_recovery in_progress the bank has no charge under the step key" {
		t.Errorf("the audit: %s", got)
	}

	// Pin the database's times of the action for the golden.
	if _, err := pool.Exec(t.Context(), `UPDATE support.idempotency_operation_audit SET at = '2026-11-30 13:00:00+00';
	    UPDATE support.idempotency_progress SET lease_until = '2026-11-30 13:00:00+00' WHERE resumed_by IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = ops("show", "--schema", "support", haltedPayment)
	if code != exitOK {
		t.Fatalf("ops show: exit %d: %s", code, errOut)
	}
	golden(t, "show-resumed.txt", out)
	code, out, _ = ops("audit", "--schema", "support", "--operation-id", haltedPayment)
	if code != exitOK || !strings.Contains(out, "alice  operation "+haltedPayment+"  requires_recovery  in_progress") {
		t.Errorf("ops audit: exit %d,\n%s", code, out)
	}

	code, _, errOut = ops("resume", "--schema", "support", haltedPayment, "--actor", "bob", "--reason", "again")
	if code != exitUnusable || !strings.Contains(errOut, "is in_progress: only an operation in requires_recovery waits for a person") {
		t.Errorf("a second resume: exit %d, %s", code, errOut)
	}
}

// replayService is a service that answers createPayment under the halted
// payment's key: a retry of a decided operation is a replay whatever the
// operation's mode, so it shows what the client's retry receives after
// ops resolve. The halted payment's fingerprint is made the one this
// service computes for the client's request; the business counts its
// runs, which a replay does not add to.
type replayService struct {
	h    http.Handler
	runs atomic.Int32
}

const paymentRequest = `{"amount":100}`

func newReplayService(t *testing.T, pool *pgxpool.Pool) *replayService {
	t.Helper()
	exec, err := idem.NewExecutor(idem.Config{Pool: pool, Schema: "support"})
	if err != nil {
		t.Fatal(err)
	}
	s := &replayService{}
	s.h, err = idemimpl.NewHandler(exec, idemimpl.Contract{Operation: "createPayment", Method: http.MethodPost, Route: "/payments"},
		func(*http.Request) (string, error) { return "merchant-1", nil },
		func(context.Context, pgx.Tx, *idemimpl.Operation, *idemimpl.Request) (*idemimpl.Response, error) {
			s.runs.Add(1)
			return &idemimpl.Response{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"probe":true}`)}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if res := s.retry("probe"); res.Status != http.StatusCreated {
		t.Fatalf("the probe: %d %s", res.Status, res.Body)
	}
	if _, err := pool.Exec(t.Context(), `UPDATE support.idempotency_record SET fingerprint =
	    (SELECT fingerprint FROM support.idempotency_record WHERE idempotency_key = 'probe') WHERE operation_id = $1`, haltedPayment); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *replayService) retry(key string) idemtest.Response {
	return idemtest.Serve(s.h, idemtest.NewRequest(http.MethodPost, "/payments", key, []byte(paymentRequest)))
}

// requireReplay requires res to be the replay of status, content type and
// body, and the business not to have run for it.
func (s *replayService) requireReplay(t *testing.T, res idemtest.Response, status int, contentType, body string) {
	t.Helper()
	if res.Status != status || res.Header.Get("Content-Type") != contentType || string(res.Body) != body ||
		res.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry got %d %v %s; want %d, Content-Type %s, Idempotent-Replayed: true, body %s", res.Status, res.Header, res.Body,
			status, contentType, body)
	}
	if n := s.runs.Load(); n != 1 {
		t.Errorf("the business ran %d times, want once (the probe)", n)
	}
}

// ops resolve --as completed settles the halted payment with the answer
// read from --body-file: audited, the progress dropped, stored as the HTTP
// adapter stores answers, and exactly what the client's retry receives.
func TestOpsResolveOperationAsCompleted(t *testing.T) {
	pool := opsPhasedDB(t)
	svc := newReplayService(t, pool)
	if res := svc.retry("pay-halted"); res.Status != http.StatusConflict || !strings.Contains(string(res.Body), "operation-requires-recovery") {
		t.Fatalf("a retry of the halted payment: %d %s, want 409 operation-requires-recovery", res.Status, res.Body)
	}
	const body = `{"id":1,"status":"approved"}`
	file := filepath.Join(t.TempDir(), "answer.json")
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ops("resolve", "--schema", "support", haltedPayment, "--as", "completed", "--status", "201",
		"--content-type", "application/json", "--body-file", file, "--actor", "alice", "--reason", "the bank's statement shows the charge")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, "operation "+haltedPayment+": requires_recovery -> completed (audit #1, by alice: the bank's statement shows the charge)\n") {
		t.Errorf("ops resolve said %s", out)
	}
	if got := scalar[string](t, pool, `SELECT state || ' ' || response_status || ' ' || response_headers::text || ' ' ||
	        convert_from(response_body, 'UTF8') || ' ' || (SELECT count(*) FROM support.idempotency_progress WHERE operation_id = $1)
	    FROM support.idempotency_record WHERE operation_id = $1`, haltedPayment); got != `completed 201 {"Content-Type": ["application/json"]} `+body+` 0` {
		t.Errorf("the record after the resolution: %s", got)
	}
	if got := scalar[string](t, pool, `SELECT actor || ' ' || from_state || ' ' || to_state FROM support.idempotency_operation_audit`); got != "alice requires_recovery completed" {
		t.Errorf("the audit: %s", got)
	}
	svc.requireReplay(t, svc.retry("pay-halted"), http.StatusCreated, "application/json", body)
}

// ops resolve --as failed settles the halted payment with a problem:
// audited, and the client's retry receives it as application/problem+json.
func TestOpsResolveOperationAsFailed(t *testing.T) {
	pool := opsPhasedDB(t)
	svc := newReplayService(t, pool)
	code, out, errOut := ops("resolve", "--schema", "support", haltedPayment, "--as", "failed", "--status", "402",
		"--type", "https://example.com/problems/card-declined", "--title", "Card declined", "--detail", "No money moved.",
		"--actor", "bob", "--reason", "the bank declined the charge", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var act supportAction
	if err := json.Unmarshal([]byte(out), &act); err != nil || act.OperationID != haltedPayment || act.EffectKey != "" ||
		act.From != "requires_recovery" || act.To != "failed" || act.Actor != "bob" || act.AuditID != 1 || act.At.IsZero() {
		t.Errorf("ops resolve --format json: %s (%v)", out, err)
	}
	svc.requireReplay(t, svc.retry("pay-halted"), http.StatusPaymentRequired, "application/problem+json",
		`{"type":"https://example.com/problems/card-declined","title":"Card declined","status":402,"detail":"No money moved."}`)
	if n := scalar[int](t, pool, `SELECT count(*) FROM support.idempotency_progress WHERE operation_id = $1`, haltedPayment); n != 0 {
		t.Errorf("%d progress rows of the resolved payment, want 0", n)
	}
}

// resolve tells an effect key from an operation id by its form, and
// refuses flags of the other form, an unknown --as, flags of the other
// --as, and actions or answers the library refuses, all as unusable
// input (exit 2) that says what to write instead, changing nothing.
func TestOpsResolveAndResumeRefuseUnusableInput(t *testing.T) {
	pool := opsPhasedDB(t)
	const effect = "11111111-1111-4111-8111-111111111111/reserve_stock/2"
	who := []string{"--actor", "alice", "--reason", "checked"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"resolve", effect, "--as", "completed"}, "--as resolves an operation (named by its operation id); the effect key " + effect + " is resolved with --to done|failed"},
		{[]string{"resolve", effect, "--to", "done", "--status", "200"}, "--status resolves an operation"},
		{[]string{"resolve", haltedPayment, "--to", "done"}, `"` + haltedPayment + `" is no effect key (<operation id>/<effect>/<seq>): --to resolves an effect`},
		{[]string{"resolve", haltedPayment}, `--as "": resolve the operation ` + haltedPayment + " --as completed"},
		{[]string{"resolve", haltedPayment, "--as", "done"}, `--as "done"`},
		{[]string{"resolve", haltedPayment, "--as", "failed", "--status", "402", "--title", "x", "--body", "{}"}, "--body belongs to --as completed, not to --as failed"},
		{[]string{"resolve", haltedPayment, "--as", "completed", "--status", "200", "--title", "x"}, "--title belongs to --as failed, not to --as completed"},
		{[]string{"resolve", haltedPayment, "--as", "completed", "--status", "200", "--body", "{}", "--body-file", "-"}, "give the body once"},
		{[]string{"resolve", haltedPayment, "--as", "completed", "--status", "200", "--body-file", "/nonexistent/answer.json"}, "--body-file: open /nonexistent/answer.json"},
		{[]string{"resolve", haltedPayment, "--as", "completed", "--status", "409"}, "status 409: a completed operation answers with a 2xx status"},
		{[]string{"resolve", haltedPayment, "--as", "completed", "--status", "200", "--content-type", "application/json", "--body", "{"}, "the body is not JSON"},
		{[]string{"resolve", haltedPayment, "--as", "failed", "--status", "402"}, "a problem needs a title"},
		{[]string{"resolve", "pay-halted", "--as", "completed", "--status", "200"}, `operation id "pay-halted" is not a UUID`},
		{[]string{"resolve", lapsedPayment, "--as", "completed", "--status", "200"}, "is in_progress: only an operation in requires_recovery waits for a person"},
		{[]string{"resume", runningPayment}, "is in_progress"},
		{[]string{"resume", "99999999-9999-4999-8999-999999999999"}, "no operation 99999999-9999-4999-8999-999999999999"},
		{[]string{"resume", haltedPayment, "--actor", "alice\x1b[31m"}, "the actor has the control character U+001B"},
		{[]string{"resume", haltedPayment, "--reason", "ok\nsupport #7 by root: forged"}, "the reason has the control character U+000A"},
		{[]string{"resume", haltedPayment, "--reason", strings.Repeat("r", 2001)}, "the reason has 2001 characters: at most 2000"},
		{[]string{"resume", haltedPayment, effect}, "accepts 1 arg(s), received 2"},
	} {
		// An actor and a reason first, which a case's own override (the
		// last value of a flag wins).
		args := append(append([]string{c.args[0], "--schema", "support"}, who...), c.args[1:]...)
		code, out, errOut := ops(args...)
		if code != exitUnusable || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.args, code, out, errOut, c.want)
		}
	}
	if n := scalar[int](t, pool, `SELECT (SELECT count(*) FROM support.idempotency_operation_audit) + (SELECT count(*) FROM support.idempotency_effect_audit)`); n != 0 {
		t.Errorf("%d audit rows after refusals, want 0", n)
	}
	if got := scalar[string](t, pool, `SELECT state FROM support.idempotency_record WHERE operation_id = $1`, haltedPayment); got != "requires_recovery" {
		t.Errorf("the halted payment is %s after refusals", got)
	}
}
