package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idem"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

// opsSeed is a support scenario with fixed ids and times: an order whose
// email was sent and whose stock reservation halted after a lost attempt,
// an order whose email died after its attempts ran out, and an order
// refused with a stored 409, which enqueued nothing. Retention ends in
// 2099, so that the states shown do not depend on the day the test runs.
const opsSeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, response_status,
    created_at, completed_at, expires_at, purge_at) VALUES
 ('acme', 'order-key-1', '\x01', 'completed', '11111111-1111-4111-8111-111111111111', 201,
  '2026-11-30 09:00:00+00', '2026-11-30 09:00:00.5+00', '2099-12-01 09:00:00+00', '2099-12-08 09:00:00+00'),
 ('acme', 'order-key-2', '\x02', 'completed', '22222222-2222-4222-8222-222222222222', 201,
  '2026-11-30 10:00:00+00', '2026-11-30 10:00:00.5+00', '2099-12-01 10:00:00+00', '2099-12-08 10:00:00+00'),
 ('acme', 'order-key-3', '\x03', 'failed', '55555555-5555-4555-8555-555555555555', 409,
  '2026-11-30 11:00:00+00', '2026-11-30 11:00:00.2+00', '2099-12-01 11:00:00+00', '2099-12-08 11:00:00+00');
INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, payload, state, attempts,
    available_at, created_at, operation, fencing_token, last_outcome, last_error, updated_at) VALUES
 ('acme', '11111111-1111-4111-8111-111111111111', 1, 'confirmation_email', '11111111-1111-4111-8111-111111111111/confirmation_email/1',
  'retry', '{}', 'done', 1, '2026-11-30 09:00:01+00', '2026-11-30 09:00:00+00', 'createOrder', 1, 'done', NULL, '2026-11-30 09:00:01+00'),
 ('acme', '11111111-1111-4111-8111-111111111111', 2, 'reserve_stock', '11111111-1111-4111-8111-111111111111/reserve_stock/2',
  'halt', '{}', 'requires_recovery', 2, '2026-11-30 09:01:05+00', '2026-11-30 09:00:00+00', 'createOrder', 2, 'halted',
  'the previous attempt''s outcome is unknown (lost) and the policy is halt', '2026-11-30 09:01:05+00'),
 ('acme', '22222222-2222-4222-8222-222222222222', 1, 'confirmation_email', '22222222-2222-4222-8222-222222222222/confirmation_email/1',
  'retry', '{}', 'dead', 3, '2026-11-30 10:05:00+00', '2026-11-30 10:00:00+00', 'createOrder', 3, 'not_done',
  'smtp: 421 try again later', '2026-11-30 10:05:00+00');
INSERT INTO support.idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, kind, started_at,
    finished_at, outcome, error) VALUES
 ('acme', '11111111-1111-4111-8111-111111111111', 1, 1, 1, 'worker-a', 'call', '2026-11-30 09:00:00.6+00', '2026-11-30 09:00:01+00', 'done', NULL),
 ('acme', '11111111-1111-4111-8111-111111111111', 2, 1, 1, 'worker-a', NULL, '2026-11-30 09:00:00.6+00', '2026-11-30 09:01:05+00', 'lost', NULL),
 ('acme', '11111111-1111-4111-8111-111111111111', 2, 2, 2, 'worker-b', 'none', '2026-11-30 09:01:05+00', '2026-11-30 09:01:05+00', 'halted',
  'the previous attempt''s outcome is unknown (lost) and the policy is halt'),
 ('acme', '22222222-2222-4222-8222-222222222222', 1, 1, 1, 'worker-a', 'call', '2026-11-30 10:00:01+00', '2026-11-30 10:00:02+00', 'not_done', 'smtp: 421 try again later'),
 ('acme', '22222222-2222-4222-8222-222222222222', 1, 2, 2, 'worker-a', 'call', '2026-11-30 10:01:00+00', '2026-11-30 10:01:01+00', 'not_done', 'smtp: 421 try again later'),
 ('acme', '22222222-2222-4222-8222-222222222222', 1, 3, 3, 'worker-b', 'call', '2026-11-30 10:05:00+00', '2026-11-30 10:05:00+00', 'not_done', 'smtp: 421 try again later');
`

// opsDB migrates a database of the test's own in schema support, seeds it
// and points DATABASE_URL at it.
func opsDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	cs := pgtest.Database(t)
	pool, err := pgxpool.New(t.Context(), cs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := schema.Migrate(t.Context(), pool, "support"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), opsSeed); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DATABASE_URL", cs)
	t.Setenv(keyHashSecretEnv, opsSecret)
	return pool
}

// opsSecret is the key-hash secret of the service the ops tests support.
const opsSecret = "support tests' secret"

// ops runs idemgen ops with args and returns its exit code and output.
func ops(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"ops"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// golden compares got with testdata/ops/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "ops", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update to accept):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestOpsListAndShowGolden(t *testing.T) {
	opsDB(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"list.txt", []string{"list", "--schema", "support"}},
		{"list.json", []string{"list", "--schema", "support", "--format", "json"}},
		{"list-recovery.txt", []string{"list", "--schema", "support", "--state", "requires_recovery"}},
		{"list-key.txt", []string{"list", "--schema", "support", "--scope", "acme", "--key", "order-key-2", "--show-keys"}},
		{"list-key-quoted.txt", []string{"list", "--schema", "support", "--key", `"order-key-3"`}},
		{"show.txt", []string{"show", "--schema", "support", "11111111-1111-4111-8111-111111111111"}},
		{"show.json", []string{"show", "--schema", "support", "--format", "json", "22222222-2222-4222-8222-222222222222"}},
		{"show-no-effects.txt", []string{"show", "--schema", "support", "55555555-5555-4555-8555-555555555555"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := ops(c.args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, c.name, out)
		})
	}
	for _, c := range []struct {
		args             []string
		operations, effs int
	}{
		{[]string{"--older-than", "1h"}, 3, 3},
		{[]string{"--older-than", "876000h"}, 0, 0},
		{[]string{"--operation", "refundOrder"}, 0, 0},
		{[]string{"--operation", "createOrder"}, 2, 3}, // the 409 enqueued nothing: its name is unknown
		{[]string{"--state", "failed"}, 1, 0},
		{[]string{"--state", "dead"}, 0, 1},
		{[]string{"--key", "order-key-1"}, 1, 2},
		{[]string{"--key", `"order-key-1"`, "--scope", "acme"}, 1, 2},
		{[]string{"--key", "order-key-1", "--scope", "other"}, 0, 0},
		{[]string{"--limit", "1"}, 1, 1},
	} {
		code, out, errOut := ops(append([]string{"list", "--schema", "support", "--format", "json"}, c.args...)...)
		var list jsonList
		if code != exitOK || json.Unmarshal([]byte(out), &list) != nil {
			t.Errorf("%v: exit %d, %s%s", c.args, code, out, errOut)
			continue
		}
		if len(list.Operations) != c.operations || len(list.Effects) != c.effs {
			t.Errorf("%v: %d operations and %d effects, want %d and %d", c.args, len(list.Operations), len(list.Effects), c.operations, c.effs)
		}
	}
	if code, out, _ := ops("list", "--schema", "support", "--operation", "refundOrder"); code != exitOK || out != "no operations or effects match\n" {
		t.Errorf("--operation refundOrder: exit %d, %q; want no operations or effects", code, out)
	}
}

// A malformed key, operation id or state is unusable input, named in a
// message that says what is wrong and what is wanted; nothing is listed.
func TestOpsListRefusesMalformedFilters(t *testing.T) {
	opsDB(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--key", "order key"}, `key "order key" is malformed: byte 0x20 at 5 is not allowed in a bare key; write it as the client sent it`},
		{[]string{"--key", `"order-key-1`}, `key "\"order-key-1" is malformed: unterminated string`},
		{[]string{"--key", `"order-key-1" x`}, `is malformed: text after the closing quote`},
		{[]string{"--operation-id", "42"}, `operation id "42" is not a UUID`},
		{[]string{"--state", "stuck"}, `--state "stuck": want an operation state (one of [in_progress completed`},
		{[]string{"--limit", "-1"}, "limit must be between 1 and 2147483647"},
	} {
		code, out, errOut := ops(append([]string{"list", "--schema", "support"}, c.args...)...)
		if code != exitUnusable || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.args, code, out, errOut, c.want)
		}
	}
}

// Without the service's key-hash secret, ops shows no hash (no other
// secret gives the logs' hashes) and says on stderr how to get one.
func TestOpsWithoutASecretShowsNoKeyHash(t *testing.T) {
	opsDB(t)
	t.Setenv(keyHashSecretEnv, "")
	code, out, errOut := ops("list", "--schema", "support", "--key", "order-key-3")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "OPERATION ID                          OPERATION  SCOPE  KEY HASH  STATE   STATUS  EFFECTS  CREATED\n" +
		"55555555-5555-4555-8555-555555555555  -          acme   -         failed  409     -        2026-11-30T11:00:00Z\n"
	if out != want || !strings.Contains(errOut, keyHashSecretEnv+" is not set, so keys are shown as -") {
		t.Errorf("stdout:\n%s\nstderr: %s", out, errOut)
	}
	if _, _, errOut := ops("list", "--schema", "support", "--show-keys"); strings.Contains(errOut, "note") {
		t.Errorf("--show-keys still notes the missing secret: %s", errOut)
	}
}

func TestOpsResolveWritesOneAuditRowAndMovesTheState(t *testing.T) {
	pool := opsDB(t)
	const key = "11111111-1111-4111-8111-111111111111/reserve_stock/2"
	code, out, errOut := ops("resolve", "--schema", "support", key, "--to", "done", "--reason", "warehouse confirmed the reservation", "--actor", "alice")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "requires_recovery -> done") {
		t.Errorf("output %q does not say the move", out)
	}
	var n int
	var actor, from, to, reason, state string
	if err := pool.QueryRow(t.Context(), `SELECT count(*) OVER (), actor, from_state, to_state, reason FROM support.idempotency_effect_audit`).
		Scan(&n, &actor, &from, &to, &reason); err != nil {
		t.Fatal(err)
	}
	if n != 1 || actor != "alice" || from != "requires_recovery" || to != "done" || reason != "warehouse confirmed the reservation" {
		t.Errorf("audit: %d rows, %s %s->%s %q", n, actor, from, to, reason)
	}
	if err := pool.QueryRow(t.Context(), `SELECT state FROM support.idempotency_outbox WHERE seq = 2`).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if state != "done" {
		t.Errorf("state %s, want done", state)
	}

	// A second resolution finds it done: refused, nothing written.
	if code, _, errOut := ops("resolve", "--schema", "support", key, "--to", "failed", "--reason", "again", "--actor", "bob"); code != exitUnusable ||
		!strings.Contains(errOut, "is done: only an effect in requires_recovery or dead") {
		t.Errorf("resolving a done effect: exit %d, %s", code, errOut)
	}
	// retry of the dead email: pending, attempts reset, audited.
	if code, _, errOut := ops("retry", "--schema", "support", "22222222-2222-4222-8222-222222222222/confirmation_email/1", "--reason", "smtp is back", "--actor", "bob"); code != exitOK {
		t.Fatalf("retry: exit %d: %s", code, errOut)
	}
	var attempts int
	if err := pool.QueryRow(t.Context(), `SELECT state, attempts FROM support.idempotency_outbox WHERE operation_id = '22222222-2222-4222-8222-222222222222'`).
		Scan(&state, &attempts); err != nil {
		t.Fatal(err)
	}
	if state != "pending" || attempts != 0 {
		t.Errorf("after retry: %s after %d attempts, want pending after 0", state, attempts)
	}
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM support.idempotency_effect_audit`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d audit rows, want 2", n)
	}
}

func TestOpsResolveWithoutAReasonIsRefused(t *testing.T) {
	pool := opsDB(t)
	const key = "22222222-2222-4222-8222-222222222222/confirmation_email/1"
	for _, args := range [][]string{
		{"resolve", "--schema", "support", key, "--to", "failed", "--actor", "alice"},
		{"resolve", "--schema", "support", key, "--to", "failed", "--actor", "alice", "--reason", "  "},
		{"retry", "--schema", "support", key, "--reason", "why not"},
	} {
		code, _, errOut := ops(args...)
		if code != exitUnusable || !strings.Contains(errOut, "needs --reason and --actor") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	// The table refuses it too, whoever writes.
	_, err := pool.Exec(t.Context(), `INSERT INTO support.idempotency_effect_audit (scope, operation_id, seq, actor, reason, from_state, to_state, at)
VALUES ('acme', '22222222-2222-4222-8222-222222222222', 1, 'alice', '', 'dead', 'failed', now())`)
	if err == nil || !strings.Contains(err.Error(), "idempotency_effect_audit_reason_check") {
		t.Errorf("an audit row without a reason: %v", err)
	}
	_, err = pool.Exec(t.Context(), `INSERT INTO support.idempotency_effect_audit (scope, operation_id, seq, actor, reason, from_state, to_state, at)
VALUES ('acme', '11111111-1111-4111-8111-111111111111', 1, 'alice', 'x', 'done', 'failed', now())`)
	if err == nil || !strings.Contains(err.Error(), "idempotency_effect_audit_from_check") {
		t.Errorf("an audit row moving out of done: %v", err)
	}
	var state string
	if err := pool.QueryRow(t.Context(), `SELECT state FROM support.idempotency_outbox WHERE operation_id = '22222222-2222-4222-8222-222222222222'`).Scan(&state); err != nil {
		t.Fatal(err)
	}
	if state != "dead" {
		t.Errorf("state %s after refusals, want dead", state)
	}
}

// unknownProvider answers every call with an unknown outcome.
type unknownProvider struct{}

func (unknownProvider) Do(context.Context, idem.EffectCall) idem.EffectOutcome {
	return idem.EffectUnknown(context.DeadlineExceeded)
}

// haltSeen reports the worker's halted effects.
type haltSeen chan idem.EffectEvent

func (h haltSeen) ObserveEffect(ev idem.EffectEvent) {
	if ev.Kind == idem.EffectEventHalted {
		h <- ev
	}
}

// A halt effect whose outcome the worker could not know shows up in ops
// list as requires_recovery.
func TestOpsListShowsAnEffectTheWorkerHalted(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), `INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown,
    available_at, created_at, operation) VALUES ('acme', '33333333-3333-4333-8333-333333333333', 1, 'charge',
    '33333333-3333-4333-8333-333333333333/charge/1', 'halt', now(), now(), 'createOrder')`); err != nil {
		t.Fatal(err)
	}
	halted := make(haltSeen, 1)
	w, err := idem.NewWorker(idem.WorkerConfig{Pool: pool, Schema: "support", Providers: map[string]idem.Provider{"charge": unknownProvider{}},
		Observer: halted, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	<-halted
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ops("list", "--schema", "support", "--state", "requires_recovery", "--operation-id", "33333333-3333-4333-8333-333333333333")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "33333333-3333-4333-8333-333333333333/charge/1") || !strings.Contains(out, "requires_recovery") {
		t.Errorf("ops list does not show the halted effect:\n%s", out)
	}
}
