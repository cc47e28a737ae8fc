package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// gapsSeed adds to opsSeed a refund whose payload carries a card number
// and a provider token, held by a worker whose lease has not run out (it
// may be dead: only the lease's end hands the effect on), and an audit
// row another client wrote with terminal escapes in its actor and reason.
const gapsSeed = `
INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, payload, state, attempts,
    available_at, created_at, operation, fencing_token, leased_by, lease_until, updated_at) VALUES
 ('acme', '22222222-2222-4222-8222-222222222222', 2, 'refund', '22222222-2222-4222-8222-222222222222/refund/2', 'verify',
  convert_to('{"amount":1250,"currency":"EUR","card_number":"4242424242424242","provider":{"token":"tok_live_9"}}', 'UTF8'),
  'pending', 1, '2099-12-01 00:00:00+00', '2026-11-30 10:00:00+00', 'createOrder', 1, 'worker-gone', '2099-12-01 00:00:00+00',
  '2026-11-30 10:00:00+00');
INSERT INTO support.idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, started_at) VALUES
 ('acme', '22222222-2222-4222-8222-222222222222', 2, 1, 1, 'worker-gone', '2026-11-30 10:00:01+00');
INSERT INTO support.idempotency_effect_audit (scope, operation_id, seq, actor, reason, from_state, to_state, at) VALUES
 ('acme', '11111111-1111-4111-8111-111111111111', 2, E'mallory\u202Eeci', E'\x1b[2J\x1b[H\rsupport #1 by alice: all fine\nok',
  'requires_recovery', 'done', '2026-11-30 12:00:00+00');
`

// ops show prints each effect's payload with its secrets redacted, and a
// running effect's lease holder and lease end; --format json too.
func TestOpsShowPrintsTheRedactedPayloadAndTheLease(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), gapsSeed); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"table", "json"} {
		code, out, errOut := ops("show", "--schema", "support", "--format", format, "22222222-2222-4222-8222-222222222222")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, secret := range []string{"4242424242424242", "tok_live_9"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: the payload's secret %s is shown:\n%s", format, secret, out)
			}
		}
		want := map[string][]string{
			"table": {`payload: {"amount":1250,"card_number":"[redacted]","currency":"EUR","provider":{"token":"[redacted]"}}`,
				"effect 22222222-2222-4222-8222-222222222222/refund/2 (refund, on unknown: verify): running after 1 attempts; " +
					"leased by worker-gone until 2099-12-01T00:00:00Z"},
			"json": {`"payload": "{\"amount\":1250,\"card_number\":\"[redacted]\",\"currency\":\"EUR\",\"provider\":{\"token\":\"[redacted]\"}}"`,
				`"leased_by": "worker-gone"`, `"lease_until": "2099-12-01T00:00:00Z"`},
		}[format]
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in:\n%s", format, w, out)
			}
		}
	}
}

// ops list shows who holds a running effect and until when.
func TestOpsListShowsARunningEffectsLease(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), gapsSeed); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ops("list", "--schema", "support", "--state", "running")
	if code != exitOK || !strings.Contains(out, "LEASED BY") ||
		!regexp.MustCompile(`22222222-2222-4222-8222-222222222222/refund/2 .* running +1 +- +worker-gone until 2099-12-01T00:00:00Z `).MatchString(out) {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

// A reason or actor with a control character, or longer than the audit
// takes, is refused as unusable input before anything is written.
func TestOpsRefusesControlCharactersAndLongReasons(t *testing.T) {
	pool := opsDB(t)
	key := "22222222-2222-4222-8222-222222222222/confirmation_email/1"
	for _, c := range []struct {
		reason, actor, want string
	}{
		{"smtp is back\x1b[2J", "alice", "the reason has the control character U+001B"},
		{"smtp is back\r\nsupport #9 by bob: forged", "alice", "the reason has the control character U+000D"},
		{"smtp is back", "ali\u202ece", "the actor has the control character U+202E"},
		{strings.Repeat("r", 2001), "alice", "the reason has 2001 characters: at most 2000"},
		{"smtp is back", strings.Repeat("a", 201), "the actor has 201 characters: at most 200"},
	} {
		code, out, errOut := ops("retry", "--schema", "support", key, "--reason", c.reason, "--actor", c.actor)
		if code != exitUnusable || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("reason %.20q, actor %.20q: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.reason, c.actor, code, out, errOut, c.want)
		}
	}
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM support.idempotency_effect_audit").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d audit rows (%v) after the refusals, want 0", n, err)
	}
}

// Text another client stored with terminal escapes reaches the terminal
// escaped, in ops audit and ops show: no ESC, carriage return, newline or
// bidirectional override of it is printed raw.
func TestOpsPrintsStoredControlCharactersEscaped(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), gapsSeed); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"audit"}, {"show", "11111111-1111-4111-8111-111111111111"}} {
		code, out, errOut := ops(append(args, "--schema", "support")...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if strings.ContainsAny(out, "\x1b\r\u202e") {
			t.Errorf("%v printed a control character raw: %q", args, out)
		}
		for _, w := range []string{`mallory\u202eeci`, `\x1b[2J\x1b[H\x0dsupport #1 by alice: all fine\x0aok`} {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in %q", args, w, out)
			}
		}
	}
}

// A negative age is refused, not read as "created in the future".
func TestOpsRefusesNegativeAges(t *testing.T) {
	opsDB(t)
	code, out, errOut := ops("list", "--schema", "support", "--older-than", "-5m")
	if code != exitUnusable || out != "" || !strings.Contains(errOut, "older than -5m0s: want a positive duration") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 refusing the negative age", code, out, errOut)
	}
}

// Without DATABASE_URL ops says what to set; without the tables where it
// looked, it names the schema it searched and suggests --schema.
func TestOpsHintsAtDatabaseURLAndSchema(t *testing.T) {
	opsDB(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"list"}, []string{`relation "idempotency_record" does not exist`,
			`hint: the runtime's tables are not on the connection's search_path ("$user", public), which ops searches without --schema: pass --schema`}},
		{[]string{"show", "--schema", "idem", "11111111-1111-4111-8111-111111111111"}, []string{
			`hint: the runtime's tables are not in the schema "idem" that --schema names: pass --schema`}},
	} {
		code, _, errOut := ops(c.args...)
		for _, w := range c.want {
			if code != exitUnusable || !strings.Contains(errOut, w) {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errOut, w)
			}
		}
	}
	t.Setenv("DATABASE_URL", "")
	code, _, errOut := ops("list", "--schema", "support")
	if code != exitUnusable || !strings.Contains(errOut, "DATABASE_URL is not set: set it to the service's database, such as DATABASE_URL='postgres://") {
		t.Errorf("without DATABASE_URL: exit %d, stderr %q", code, errOut)
	}
}

// pipeChildEnv makes this test binary run idemgen with the arguments in it
// (separated by newlines), writing to the real stdout: the child of
// TestOpsListIntoAClosedPipeIsQuiet.
const pipeChildEnv = "IDEMGEN_OPS_PIPE_CHILD"

func init() {
	if args := os.Getenv(pipeChildEnv); args != "" {
		os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
}

// idemgen ops list | head -1: the reader goes away after one line, and
// ops stops without a panic or an error on stderr (it ends as any Unix
// filter does then, by SIGPIPE).
func TestOpsListIntoAClosedPipeIsQuiet(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), `INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state,
	    operation_id, response_status, created_at, completed_at, expires_at, purge_at)
	  SELECT 'acme', 'bulk-' || i, '\x01', 'completed', gen_random_uuid(), 201, now(), now(), '2099-12-01', '2099-12-08'
	  FROM generate_series(1, 2000) AS i`); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), pipeChildEnv+"=ops\nlist\n--schema\nsupport\n--limit\n2000")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "OPERATION ID") {
		t.Fatalf("first line %q, %v", first, err)
	}
	stdout.Close() // head -1 exits
	err = cmd.Wait()
	var exit *exec.ExitError
	quiet := err == nil || errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGPIPE
	if !quiet || stderr.Len() != 0 {
		t.Errorf("after the reader left: %v, stderr %q; want an exit by SIGPIPE (or 0) and nothing on stderr", err, stderr.String())
	}
}

// The quick start's ops command runs as the README writes it, against a
// database with the example's tables, with $url the URL it printed.
func TestReadmeOpsCommandRunsAsWritten(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = `DATABASE_URL="$url" go tool idemgen `
	var line string
	for l := range strings.Lines(string(readme)) {
		if strings.HasPrefix(l, prefix+"ops ") {
			line = strings.TrimSpace(l)
		}
	}
	if line == "" {
		t.Fatalf("README.md has no line beginning %q", prefix+"ops")
	}
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), `ALTER SCHEMA support RENAME TO idempotency`); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := run(strings.Fields(strings.TrimPrefix(line, prefix)), &stdout, &stderr)
	if code != exitOK || !strings.Contains(stdout.String(), "11111111-1111-4111-8111-111111111111") {
		t.Errorf("%s: exit %d, stdout %q, stderr %q", line, code, stdout.String(), stderr.String())
	}
}

// ops show prints the request a phased operation keeps until it is
// decided, redacted, the key hidden, and stored text escaped.
func TestOpsShowPrintsTheKeptRequestRedacted(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), `INSERT INTO support.idempotency_progress (scope, idempotency_key, operation, operation_id,
		fencing_token, lease_until, checkpoint, request, updated_at) VALUES
		('acme', 'order-key-2', 'createOrder', '22222222-2222-4222-8222-222222222222', 1, 'infinity', 'reserve',
		 convert_to('{"method":"POST","route":"/orders/{shop}","path_params":{"shop":"s1"},"header":{"Idempotency-Key":["order-key-2"],"X-Note":["a\u001b[2Jb"]},' ||
		 '"body":"' || encode(convert_to('{"sku":"S-1","cvc":"123"}', 'UTF8'), 'base64') || '"}', 'UTF8'), now())`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ops("show", "--schema", "support", "22222222-2222-4222-8222-222222222222")
	for _, w := range []string{"request: POST /orders/{shop}\n", "  path shop: s1\n", "  Idempotency-Key: [idempotency key: not shown]\n",
		`  X-Note: a\x1b[2Jb` + "\n", `  body: {"cvc":"[redacted]","sku":"S-1"}` + "\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in ops show (exit %d, stderr %q):\n%s", w, code, errOut, out)
		}
	}
	code, out, errOut = ops("show", "--schema", "support", "--format", "json", "22222222-2222-4222-8222-222222222222")
	if code != exitOK || !strings.Contains(out, `"body": "{\"cvc\":\"[redacted]\",\"sku\":\"S-1\"}"`) || strings.Contains(out, `"order-key-2"`) {
		t.Errorf("ops show --format json: exit %d, stderr %q:\n%s", code, errOut, out)
	}
}
