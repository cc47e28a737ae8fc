package console_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/idemops"
	"github.com/idemgen/idemgen/runtime/idemops/console"
	"github.com/idemgen/idemgen/runtime/pgtest"
	"github.com/idemgen/idemgen/runtime/schema"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// seed: an order whose refund halted (its payload carries a card number,
// and a one-time link the spec marks writeOnly), with an audit row
// another client wrote with a script in its reason; its answer linked
// /orders/o-1 and carries a claim code the spec marks format: password.
const seed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, response_status,
    response_headers, response_body, created_at, completed_at, expires_at, purge_at) VALUES
 ('acme', 'order-1', '\x01', 'completed', '11111111-1111-4111-8111-111111111111', 201, '{"Location": ["/orders/o-1"]}',
  convert_to('{"id":"o-1","card_number":"4242424242424242","claim_code":"CLAIM-777"}', 'UTF8'), now(), now(), '2099-12-01', '2099-12-08');
INSERT INTO support.idempotency_outbox (scope, operation_id, seq, effect, effect_key, on_unknown, payload, state, attempts,
    available_at, created_at, operation, fencing_token, last_outcome) VALUES
 ('acme', '11111111-1111-4111-8111-111111111111', 1, 'refund', '11111111-1111-4111-8111-111111111111/refund/1', 'halt',
  convert_to('{"amount":1250,"card_number":"4242424242424242","one_time_link":"https://x/l/1"}', 'UTF8'), 'requires_recovery', 2, now(), now(), 'createOrder', 2, 'halted'),
 ('acme', '11111111-1111-4111-8111-111111111111', 2, 'email', '11111111-1111-4111-8111-111111111111/email/2', 'retry',
  '{}', 'done', 1, now(), now(), 'createOrder', 1, 'done');
INSERT INTO support.idempotency_effect_audit (scope, operation_id, seq, actor, reason, from_state, to_state, at) VALUES
 ('acme', '11111111-1111-4111-8111-111111111111', 2, 'mallory', '<script>document.title="owned"</script>', 'dead', 'done', now());
INSERT INTO support.idempotency_progress (scope, idempotency_key, operation, operation_id, fencing_token, lease_until, checkpoint,
    request, updated_at) VALUES
 ('acme', 'order-1', 'createOrder', '11111111-1111-4111-8111-111111111111', 1, 'infinity', 'reserve',
  convert_to('{"method":"POST","route":"/orders","header":{"Idempotency-Key":["order-1"],"X-Note":["<b>hi</b>"]},' ||
             '"body":"' || encode(convert_to('{"sku":"S-1","password":"hunter2"}', 'UTF8'), 'base64') || '"}', 'UTF8'), now());
`

const opID = "11111111-1111-4111-8111-111111111111"

// newConsole serves the console on a seeded database; the header
// X-Test-Role says who the request is ("act", "read", or nobody).
func newConsole(t *testing.T) (*httptest.Server, *pgxpool.Pool) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := schema.Migrate(t.Context(), pool, "support"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), seed); err != nil {
		t.Fatal(err)
	}
	ops, err := idemops.New(pool, idemops.Config{Schema: "support", KeyHashSecret: []byte("s"), SecretFields: []string{"claim_code", "one_time_link"}})
	if err != nil {
		t.Fatal(err)
	}
	h, err := console.New(console.Config{Ops: ops, Authorize: func(r *http.Request) console.Principal {
		switch r.Header.Get("X-Test-Role") {
		case "act":
			return console.Principal{Name: "alice", Role: console.RoleAct}
		case "read":
			return console.Principal{Name: "bob", Role: console.RoleRead}
		}
		return console.Principal{}
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, pool
}

// client sends requests as role, keeping cookies, not following redirects.
type client struct {
	t    *testing.T
	http *http.Client
	base string
	role string
}

func newClient(t *testing.T, srv *httptest.Server, role string) *client {
	jar, _ := cookiejar.New(nil)
	return &client{t: t, base: srv.URL, role: role, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (c *client) do(method, path string, form url.Values, header map[string]string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	req.Header.Set("X-Test-Role", c.role)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// auditRows counts the audit rows of the refund.
func auditRows(t *testing.T, pool *pgxpool.Pool) int {
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM support.idempotency_effect_audit WHERE seq = 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Deny by default: New refuses a Config without Authorize; a request its
// authentication does not admit gets 401 and no data.
func TestConsoleDeniesByDefault(t *testing.T) {
	if _, err := console.New(console.Config{Ops: &idemops.Client{}}); err == nil || !strings.Contains(err.Error(), "Authorize is required") {
		t.Errorf("New without Authorize: %v", err)
	}
	srv, _ := newConsole(t)
	for _, path := range []string{"/", "/operations/" + opID, "/?key=order-1"} {
		code, body := newClient(t, srv, "").do("GET", path, nil, nil)
		if code != http.StatusUnauthorized || strings.Contains(body, opID) {
			t.Errorf("GET %s without authentication: %d, want 401 showing nothing", path, code)
		}
	}
}

// A key finds its operation in either form, and so does the created
// resource's link; the page shows the payload and the answer redacted
// (fields named like secrets, and those the spec marks) and the stored
// script as text.
func TestConsoleFindsAndShowsRedactedAndEscaped(t *testing.T) {
	srv, _ := newConsole(t)
	c := newClient(t, srv, "read")
	for _, q := range []string{"key=" + url.QueryEscape(`"order-1"`), "key=order-1", "link=o-1", "link=" + url.QueryEscape("/orders/o-1")} {
		code, body := c.do("GET", "/?"+q, nil, nil)
		if code != http.StatusOK || !strings.Contains(body, `href="/operations/`+opID+`"`) {
			t.Errorf("search by %s: %d\n%s", q, code, body)
		}
	}
	if code, body := c.do("GET", "/?link=o-2", nil, nil); code != http.StatusOK || strings.Contains(body, opID) {
		t.Errorf("search by another link: %d\n%s", code, body)
	}
	code, body := c.do("GET", "/operations/"+opID, nil, nil)
	if code != http.StatusOK {
		t.Fatalf("operation page: %d\n%s", code, body)
	}
	if strings.Contains(body, "4242424242424242") ||
		!strings.Contains(body, html.EscapeString(`{"amount":1250,"card_number":"[redacted]","one_time_link":"[redacted]"}`)) ||
		strings.Contains(body, "CLAIM-777") || strings.Contains(body, "https://x/l/1") {
		t.Errorf("the payload or the answer is not shown redacted:\n%s", body)
	}
	if !strings.Contains(body, `<table id="request">`) || strings.Contains(body, "hunter2") || strings.Contains(body, "<b>hi</b>") ||
		!strings.Contains(body, html.EscapeString(`{"password":"[redacted]","sku":"S-1"}`)) || !strings.Contains(body, "[idempotency key: not shown]") {
		t.Errorf("the stored request is not shown redacted and escaped:\n%s", body)
	}
	if strings.Contains(body, "<script>") || !strings.Contains(body, "&lt;script&gt;document.title=&#34;owned&#34;&lt;/script&gt;") {
		t.Errorf("the stored script is not escaped:\n%s", body)
	}
	if strings.Contains(body, `name="action"`) {
		t.Errorf("a reader is offered actions")
	}
}

// An action takes the act role, the form's token, this origin, and a
// confirmation; then the move and its audit row are written.
func TestConsoleActionsNeedRoleTokenOriginAndConfirmation(t *testing.T) {
	srv, pool := newConsole(t)
	reader, actor := newClient(t, srv, "read"), newClient(t, srv, "act")
	_, page := actor.do("GET", "/operations/"+opID, nil, nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form token on the page of an actor:\n%s", page)
	}
	form := url.Values{"csrf": {m[1]}, "action": {"resolve-done"}, "target": {opID + "/refund/1"}, "operation": {opID},
		"reason": {"the bank confirmed the refund"}}
	if code, _ := reader.do("POST", "/actions", form, nil); code != http.StatusForbidden {
		t.Errorf("a reader's action: %d, want 403", code)
	}
	forged := url.Values{}
	for k, v := range form {
		forged[k] = v
	}
	forged.Set("csrf", "forged")
	for name, c := range map[string]struct {
		form   url.Values
		header map[string]string
	}{
		"no token":       {forged, nil},
		"cross-site":     {form, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"another origin": {form, map[string]string{"Origin": "http://evil.example"}},
	} {
		f := url.Values{}
		for k, v := range c.form {
			f[k] = v
		}
		f.Set("confirm", "yes")
		if code, body := actor.do("POST", "/actions", f, c.header); code != http.StatusForbidden || !strings.Contains(body, "Refused a cross-site request") {
			t.Errorf("%s: %d, want 403 refusing a cross-site request", name, code)
		}
	}
	if n := auditRows(t, pool); n != 0 {
		t.Fatalf("%d audit rows after refused actions", n)
	}
	code, confirm := actor.do("POST", "/actions", form, nil)
	if code != http.StatusOK || !strings.Contains(confirm, `id="confirm-button"`) || auditRows(t, pool) != 0 {
		t.Fatalf("the first POST must ask to confirm and write nothing: %d\n%s", code, confirm)
	}
	form.Set("confirm", "yes")
	form.Set("csrf", csrfField.FindStringSubmatch(confirm)[1])
	if code, _ := actor.do("POST", "/actions", form, map[string]string{"Origin": srv.URL, "Sec-Fetch-Site": "same-origin"}); code != http.StatusSeeOther {
		t.Fatalf("the confirmed action: %d, want 303 back to the operation", code)
	}
	var actorName, reason, state string
	if err := pool.QueryRow(t.Context(), `SELECT a.actor, a.reason, o.state FROM support.idempotency_effect_audit AS a
	    JOIN support.idempotency_outbox AS o USING (scope, operation_id, seq) WHERE a.seq = 1`).Scan(&actorName, &reason, &state); err != nil {
		t.Fatal(err)
	}
	if actorName != "alice" || reason != "the bank confirmed the refund" || state != "done" {
		t.Errorf("audit row by %s for %q, effect %s; want alice's, done", actorName, reason, state)
	}
}

// haltedSeed: a phased payment halted for a person at its recovery point.
const haltedSeed = `
INSERT INTO support.idempotency_record (scope, idempotency_key, fingerprint, state, operation_id, operation, response_status,
    created_at, completed_at, expires_at, purge_at) VALUES
 ('acme', 'pay-1', '\x00', 'requires_recovery', '33333333-3333-4333-8333-333333333333', 'createPayment', NULL, now(), now(),
  now() + interval '1 day', now() + interval '2 days');
INSERT INTO support.idempotency_progress (scope, idempotency_key, operation, operation_id, fencing_token, lease_until, checkpoint,
    checkpoint_state, request, updated_at) VALUES
 ('acme', 'pay-1', 'createPayment', '33333333-3333-4333-8333-333333333333', 2, 'infinity', 'record_payment', '3', '{}', now());
`

// A phased operation halted for a person is resumed from its page, and
// its audit row names the signed-in actor and the reason.
func TestConsoleResumesAHaltedOperation(t *testing.T) {
	srv, pool := newConsole(t)
	if _, err := pool.Exec(t.Context(), haltedSeed); err != nil {
		t.Fatal(err)
	}
	const id = "33333333-3333-4333-8333-333333333333"
	c := newClient(t, srv, "act")
	_, page := c.do("GET", "/operations/"+id, nil, nil)
	if !strings.Contains(page, `value="resume"`) {
		t.Fatalf("no resume form on a halted operation's page:\n%s", page)
	}
	form := url.Values{"csrf": {csrfField.FindStringSubmatch(page)[1]}, "action": {"resume"}, "target": {id}, "operation": {id},
		"reason": {"the bank says the charge never arrived"}, "confirm": {"yes"}}
	if code, _ := c.do("POST", "/actions", form, nil); code != http.StatusSeeOther {
		t.Fatalf("resume: %d, want 303", code)
	}
	var state, actor, reason string
	if err := pool.QueryRow(t.Context(), `SELECT r.state, a.actor, a.reason FROM support.idempotency_record AS r
	    JOIN support.idempotency_operation_audit AS a USING (scope, operation_id)`).Scan(&state, &actor, &reason); err != nil {
		t.Fatal(err)
	}
	if state != "in_progress" || actor != "alice" || reason != "the bank says the charge never arrived" {
		t.Errorf("after resume: %s, audit by %s for %q", state, actor, reason)
	}
}

// A halted operation is resolved from its page as completed with the
// answer support gives, after a confirmation that shows that answer; the
// record then holds it for every retry, with its audit row; an answer the
// library refuses is a 400 that writes nothing.
func TestConsoleResolvesAHaltedOperationWithAnAnswer(t *testing.T) {
	srv, pool := newConsole(t)
	if _, err := pool.Exec(t.Context(), haltedSeed); err != nil {
		t.Fatal(err)
	}
	const id = "33333333-3333-4333-8333-333333333333"
	c := newClient(t, srv, "act")
	_, page := c.do("GET", "/operations/"+id, nil, nil)
	if !strings.Contains(page, `value="resolve-completed"`) || !strings.Contains(page, `value="resolve-refused"`) {
		t.Fatalf("no resolve form on a halted operation's page:\n%s", page)
	}
	csrf := csrfField.FindStringSubmatch(page)[1]
	form := url.Values{"csrf": {csrf}, "action": {"resolve-completed"}, "target": {id}, "operation": {id},
		"reason": {"the bank confirms charge ch_1"}, "status": {"201"}, "content_type": {"application/json"},
		"body": {`{"id":7,"status":"approved","note":"<b>x</b>"}`}}
	if code, body := c.do("POST", "/actions", form, nil); code != http.StatusOK || !strings.Contains(body, `id="confirm-button"`) ||
		!strings.Contains(body, html.EscapeString(`{"id":7,"status":"approved","note":"<b>x</b>"}`)) || strings.Contains(body, "<b>x</b>") {
		t.Fatalf("the confirmation does not show the answer, escaped: %d\n%s", code, body)
	}

	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("confirm", "yes")
	bad.Set("body", `{"id":7`)
	if code, _ := c.do("POST", "/actions", bad, nil); code != http.StatusBadRequest {
		t.Errorf("a JSON answer that is not JSON: %d, want 400", code)
	}
	bad.Set("status", "two hundred")
	if code, _ := c.do("POST", "/actions", bad, nil); code != http.StatusBadRequest {
		t.Errorf("a status that is not a number: %d, want 400", code)
	}
	var audits int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM support.idempotency_operation_audit`).Scan(&audits); err != nil || audits != 0 {
		t.Fatalf("refused resolutions wrote %d audit rows (%v)", audits, err)
	}

	form.Set("confirm", "yes")
	if code, body := c.do("POST", "/actions", form, nil); code != http.StatusSeeOther {
		t.Fatalf("resolve: %d, want 303\n%s", code, body)
	}
	var state, actor, reason, body string
	var status int
	if err := pool.QueryRow(t.Context(), `SELECT r.state, r.response_status, convert_from(r.response_body, 'UTF8'), a.actor, a.reason
	    FROM support.idempotency_record AS r JOIN support.idempotency_operation_audit AS a USING (scope, operation_id)`).
		Scan(&state, &status, &body, &actor, &reason); err != nil {
		t.Fatal(err)
	}
	if state != "completed" || status != 201 || body != `{"id":7,"status":"approved","note":"<b>x</b>"}` || actor != "alice" ||
		reason != "the bank confirms charge ch_1" {
		t.Errorf("after resolve: %s %d %s, audit by %s for %q", state, status, body, actor, reason)
	}
	if _, page := c.do("GET", "/operations/"+id, nil, nil); strings.Contains(page, `id="resolve-operation"`) {
		t.Errorf("a resolved operation still offers resolution")
	}
}
