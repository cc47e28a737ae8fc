package console_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/idemops/console"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// screenshotsEnv names a directory to save the pages' screenshots in
// (docs/console when they are refreshed).
const screenshotsEnv = "IDEMGEN_CONSOLE_SCREENSHOTS"

const (
	opID = "5b1c7e0a-6c1d-4f4e-9a57-1e0a1a7f0001"
	key  = "8e03978e-40d5-43e8-bc93-6894a57f9324"
)

// seed: the quick start's order, whose refund halted on an unknown
// outcome (its payload carries a card number) and whose email died; an
// audit row another client wrote carries a script.
var seed = fmt.Sprintf(`
INSERT INTO idempotency.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, operation, response_status,
    response_headers, response_body, created_at, completed_at, expires_at, purge_at) VALUES
 ('tenant-a', '%[2]s', '\x01', 'completed', '%[1]s', 'createOrder', 201, '{"Location":["/orders/o-1001"]}',
  convert_to('{"id":"o-1001","status":"confirmed","payment":{"card_number":"4242424242424242"}}', 'UTF8'),
  now() - interval '2 hours', now() - interval '2 hours', now() + interval '1 day', now() + interval '8 days');
INSERT INTO idempotency.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, payload, state, attempts,
    available_at, created_at, operation, fencing_token, last_outcome, last_error) VALUES
 ('tenant-a', '%[1]s', 1, 'refund', '%[1]s/refund/1', 'halt',
  convert_to('{"amount":1250,"currency":"EUR","card_number":"4242424242424242","api_key":"sk_live_1"}', 'UTF8'),
  'requires_recovery', 2, now(), now() - interval '2 hours', 'createOrder', 2, 'halted',
  'the previous attempt''s outcome is unknown (lost) and the policy is halt'),
 ('tenant-a', '%[1]s', 2, 'confirmation_email', '%[1]s/confirmation_email/2', 'retry', '{"to":"ann@example.com"}',
  'dead', 10, now(), now() - interval '2 hours', 'createOrder', 10, 'not_done', 'smtp: 421 try again later');
INSERT INTO idempotency.idempotency_effect_attempt (scope, operation_id, seq, fencing_token, attempt, worker, kind, started_at,
    finished_at, outcome, error) VALUES
 ('tenant-a', '%[1]s', 1, 1, 1, 'worker-a', NULL, now() - interval '2 hours', now() - interval '1 hour', 'lost', NULL),
 ('tenant-a', '%[1]s', 1, 2, 2, 'worker-b', 'none', now() - interval '1 hour', now() - interval '1 hour', 'halted',
  'the previous attempt''s outcome is unknown (lost) and the policy is halt');
INSERT INTO idempotency.idempotency_effect_audit (scope, operation_id, seq, actor, reason, from_state, to_state, at) VALUES
 ('tenant-a', '%[1]s', 2, 'mallory', '<script>document.title="owned"</script>', 'dead', 'pending', now() - interval '30 minutes');
`, opID, key)

// chromium is the browser's path; the test skips without one.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: apt-get install chromium (Debian's package) to run the console's browser test")
	return ""
}

// Must show 3: in headless Chromium, the console finds the order by its
// quoted key, opens it, shows the refund's payload redacted and the
// stored script as text, resolves the refund with a reason behind a
// confirmation, and the audit row exists; a request without
// authentication and a forged cross-site form post are refused.
func TestConsoleInABrowser(t *testing.T) {
	exe := chromium(t)
	pool, err := pgxpool.New(context.Background(), pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := schema.Migrate(t.Context(), pool, "idempotency"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), seed); err != nil {
		t.Fatal(err)
	}
	ops, err := idemops.New(pool, idemops.Config{Schema: "idempotency", KeyHashSecret: []byte("the service's secret")})
	if err != nil {
		t.Fatal(err)
	}
	h, err := console.New(console.Config{Ops: ops, Authorize: func(r *http.Request) console.Principal {
		if name, secret, ok := r.BasicAuth(); ok && secret == "act-token" {
			return console.Principal{Name: name, Role: console.RoleAct}
		}
		return console.Principal{}
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	// Another site whose page posts a retry of the dead email to the
	// console as soon as it loads, in the signed-in browser.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><body onload="document.forms[0].submit()"><form method="post" action="%s/actions">
<input name="action" value="retry"><input name="target" value="%s/confirmation_email/2"><input name="operation" value="%s">
<input name="reason" value="forged"><input name="actor" value="mallory"><input name="confirm" value="yes"></form>`, srv.URL, opID, opID)
	}))
	defer evil.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.WindowSize(1100, 820))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(browser, 2*time.Minute) // a hung browser fails the test; no step is timed
	defer cancel()

	// Without authentication the console refuses.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?key="+key)); err != nil {
		t.Fatal(err)
	}
	refused, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#refused")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(refused, "Sign in") {
		t.Errorf("without authentication the console says %q", refused)
	}

	shots := os.Getenv(screenshotsEnv)
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if shots == "" {
				return nil
			}
			png, err := chromedp.FullScreenshot(100)(ctx, tg) // 100: PNG
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, name), png, 0o644)
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}
	auth := network.Headers{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:act-token"))}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: auth}); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.SendKeys(chromedp.CSS("#key"), `"`+key+`"`),
		chromedp.Click(chromedp.CSS("#find")),
		chromedp.WaitVisible(chromedp.CSS("#operations")),
		shot("search.png"),
		chromedp.Click(chromedp.CSS("#operations a")),
		chromedp.WaitVisible(chromedp.CSS("#record")),
		shot("operation.png"),
	)
	if err != nil {
		t.Fatal(err)
	}
	payload, answer, reasons := text("#effect-1 .payload"), text("#answer"), text("#effect-2 .audit")
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#effect-1 input[name=reason]"), "the bank confirmed refund re_1 of 12.50 EUR"),
		chromedp.Click(chromedp.CSS(`#effect-1 button[value="resolve-done"]`)),
		chromedp.WaitVisible(chromedp.CSS("#confirm-button")),
		shot("confirm.png"),
		chromedp.Click(chromedp.CSS("#confirm-button")),
		chromedp.WaitVisible(chromedp.CSS("#effect-1 .audit")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"amount":1250,"api_key":"[redacted]","card_number":"[redacted]","currency":"EUR"}`; payload != want {
		t.Errorf("the refund's payload shows %s, want %s", payload, want)
	}
	if strings.Contains(answer, "4242") || !strings.Contains(answer, `"card_number":"[redacted]"`) {
		t.Errorf("the answer shows %q", answer)
	}
	if !strings.Contains(reasons, `<script>document.title="owned"</script>`) || title == "owned" {
		t.Errorf("the stored script: shown as %q, title %q; want it as text and never run", reasons, title)
	}
	var actor, reason, state string
	if err := pool.QueryRow(t.Context(), `SELECT a.actor, a.reason, o.state FROM idempotency.idempotency_effect_audit AS a
	    JOIN idempotency.idempotency_outbox AS o USING (scope, operation_id, seq) WHERE a.seq = 1`).Scan(&actor, &reason, &state); err != nil {
		t.Fatalf("no audit row of the resolution: %v", err)
	}
	if actor != "alice" || reason != "the bank confirmed refund re_1 of 12.50 EUR" || state != "done" {
		t.Errorf("audit row by %q for %q, refund %s; want alice's, done", actor, reason, state)
	}

	// The forged post from the other site is refused; the email stays dead.
	if err := chromedp.Do(ctx, chromedp.Navigate(evil.URL), chromedp.WaitVisible(chromedp.CSS("#refused")), shot("refused.png")); err != nil {
		t.Fatal(err)
	}
	refused = text("#refused")
	var emailState string
	var audits int
	if err := pool.QueryRow(t.Context(), `SELECT o.state, (SELECT count(*) FROM idempotency.idempotency_effect_audit WHERE seq = 2)
	    FROM idempotency.idempotency_outbox AS o WHERE seq = 2`).Scan(&emailState, &audits); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(refused, "Refused a cross-site request") || emailState != "dead" || audits != 1 {
		t.Errorf("the forged post: %q, email %s with %d audit rows; want refused, dead, 1", refused, emailState, audits)
	}
}
