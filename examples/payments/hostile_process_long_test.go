//go:build long

package main

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemgen/idemgen/runtime/pgtest"
)

// hostileSecret is the webhook secret the hostile run's service verifies.
const hostileSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// hostileRounds is how many times each hostile request is sent, each time
// under a key or id of its own and once more under the same one: a refused
// request must leave nothing that changes the next answer.
const hostileRounds = 3

// hostile is one hostile request and what its answer must say: a status,
// and the field (a JSON pointer, a header) the problem names.
type hostile struct {
	name   string
	path   string // /payments or /webhooks/bank
	body   string
	header map[string]string // set after the defaults; "" deletes
	want   int
	field  string
	// signID and secret, on a webhook, sign it as another id or under
	// another secret than the one it carries and the service's ("" signs
	// what it sends, as the bank would).
	signID, secret string
}

// The payments example as a child process, against several hundred
// hostile requests and webhook deliveries: bad JSON, wrong types, missing
// and unknown fields, huge bodies, bad signatures, bad keys and webhook
// ids. Every answer must be the case's 4xx as problem+json naming the
// field, never a 5xx, and nothing may be stored: no payment, no
// idempotency record, no inbox row, no effect. (A header value with a
// control character other than a tab is refused by net/http itself, 400
// in plain text, before any handler: not sent here.)
func TestHostileTrafficIsRefusedWithProblems(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example as a child process")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "payments")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := pgtest.Database(t)
	addr := freeAddr(t)
	// The bank's address listens to nothing: a hostile request that got
	// as far as charging would answer 5xx.
	mustStart(t, filepath.Join(dir, "service.log"), db, "/payments", bin,
		"-addr", addr, "-bank-url", "http://"+freeAddr(t), "-webhook-secret", hostileSecret)

	cases := hostileCases()
	client := &http.Client{Timeout: 30 * time.Second}
	sent := 0
	statuses := map[int]int{}
	for round := range hostileRounds {
		for i, c := range cases {
			// Rounds 0 and 1 share keys and ids, round 2 has its own.
			n := i
			if round == 2 {
				n += len(cases)
			}
			status, problem, raw := send(t, client, addr, c, n)
			sent++
			statuses[status]++
			if status < 400 || status > 499 {
				t.Errorf("%s (round %d): status %d %s, want %d", c.name, round, status, raw, c.want)
				continue
			}
			if status != c.want {
				t.Errorf("%s (round %d): status %d %s, want %d", c.name, round, status, raw, c.want)
			}
			if problem == nil {
				t.Errorf("%s (round %d): %d %s, want application/problem+json", c.name, round, status, raw)
				continue
			}
			if !strings.Contains(strings.ToLower(problem.text()), strings.ToLower(c.field)) {
				t.Errorf("%s (round %d): the problem %s does not name %s", c.name, round, raw, c.field)
			}
		}
	}
	stored := storedRows(t, db)
	for table, n := range stored {
		if n != 0 {
			t.Errorf("%d rows in %s after hostile traffic only, want 0", n, table)
		}
	}
	t.Logf("%d hostile requests (%d cases × %d rounds): statuses %v; stored %v", sent, len(cases), hostileRounds, statuses, stored)
}

// problemAnswer is the part of a problem the test reads.
type problemAnswer struct {
	Type       string `json:"type"`
	Title      string `json:"title"`
	Status     int    `json:"status"`
	Detail     string `json:"detail"`
	Violations []struct {
		Pointer string `json:"pointer"`
		Message string `json:"message"`
	} `json:"violations"`
}

// text is everything the problem says, to look for a field's name in.
func (p *problemAnswer) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", p.Type, p.Title, p.Detail)
	for _, v := range p.Violations {
		fmt.Fprintf(&b, " %s %s", v.Pointer, v.Message)
	}
	return b.String()
}

// send sends c as the n-th request over a connection of its own, written
// by hand so that it carries what net/http's client would refuse to send
// (a header field twice, bytes that are not UTF-8), and returns its
// status, its problem (nil when the answer is not problem+json) and its
// raw answer. A header value "" is left out; a NUL in one separates the
// values of a field sent twice.
func send(t *testing.T, client *http.Client, addr string, c hostile, n int) (int, *problemAnswer, string) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if c.path == "/payments" {
		h["Authorization"] = "Bearer merchant-hostile"
		h["Idempotency-Key"] = "hostile-" + strconv.Itoa(n)
	} else {
		h["webhook-id"] = "msg_hostile_" + strconv.Itoa(n)
		h["webhook-timestamp"] = strconv.FormatInt(time.Now().Unix(), 10)
	}
	for k, v := range c.header {
		h[k] = v
	}
	if c.path != "/payments" {
		if _, set := c.header["webhook-signature"]; !set {
			id, ts, secret := h["webhook-id"], h["webhook-timestamp"], hostileSecret
			if c.signID != "" {
				id = c.signID
			}
			if c.secret != "" {
				secret = c.secret
			}
			h["webhook-signature"] = sign(t, secret, id, ts, c.body)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: payments\r\nConnection: close\r\n", c.path)
	for k, v := range h {
		if v == "" {
			continue
		}
		for _, line := range strings.Split(v, "\x00") { // a NUL separates repeated fields
			fmt.Fprintf(&b, "%s: %s\r\n", k, line)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(c.body), c.body)
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(client.Timeout))
	go func() { _, _ = io.WriteString(conn, b.String()) }() // the server may answer before it read a huge body
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: no answer: %v", c.name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.Header.Get("Content-Type") != "application/problem+json" {
		return resp.StatusCode, nil, string(raw)
	}
	var p problemAnswer
	if err := json.Unmarshal(raw, &p); err != nil || p.Status != resp.StatusCode || p.Type == "" {
		return resp.StatusCode, nil, string(raw)
	}
	return resp.StatusCode, &p, string(raw)
}

// sign is a Standard Webhooks signature, computed here independently of
// the runtime's verifier.
func sign(t *testing.T, secret, id, ts, body string) string {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", id, ts, body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// storedRows counts what the service stored, by table.
func storedRows(t *testing.T, db string) map[string]int {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	out := map[string]int{}
	for _, table := range []string{"payments", "ledger_entries", idempotencySchema + ".idempotency_record",
		idempotencySchema + ".idempotency_progress", idempotencySchema + ".idempotency_inbox", idempotencySchema + ".idempotency_outbox"} {
		var n int
		if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatalf("counting %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

// hostileCases lists the hostile requests: each payment field and each
// settlement field given every wrong value, the body not JSON in many
// ways, too large, keys and webhook ids malformed, signatures wrong.
func hostileCases() []hostile {
	var cs []hostile
	payment := func(amount, currency, token string) string {
		var parts []string
		for _, kv := range [][2]string{{"amount", amount}, {"currency", currency}, {"card_token", token}} {
			if kv[1] != "-" {
				parts = append(parts, fmt.Sprintf("%q:%s", kv[0], kv[1]))
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	settlement := func(typ, id string) string {
		var parts []string
		for _, kv := range [][2]string{{"type", typ}, {"payment_id", id}} {
			if kv[1] != "-" {
				parts = append(parts, fmt.Sprintf("%q:%s", kv[0], kv[1]))
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	const amount, currency, token = `100`, `"EUR"`, `"tok_abc"`
	const settledType, paymentID = `"payment.settled"`, `1`
	long := `"` + strings.Repeat("x", 5000) + `"`
	wrong := map[string][]string{
		"amount":     {`"100"`, `1.5`, `true`, `null`, `[]`, `{}`, `-1`, `0`, `100000001`, `9223372036854775808`, `1e400`, `""`, long},
		"currency":   {`1`, `true`, `null`, `[]`, `{}`, `""`, `"USD"`, `"eur"`, `"EUR\u0000"`, long},
		"card_token": {`1`, `true`, `null`, `[]`, `{}`, `""`, `"tok_"`, `"card_abc"`, `"tok_` + strings.Repeat("a", 65) + `"`, `"tok_a\u0000"`, `"tok_é"`, long},
		"type":       {`1`, `true`, `null`, `[]`, `{}`, `""`, `"payment.failed"`, long},
		"payment_id": {`"1"`, `1.5`, `true`, `null`, `[]`, `{}`, `9223372036854775808`, `1e400`, `""`, long},
	}
	for _, field := range []string{"amount", "currency", "card_token"} {
		for _, v := range wrong[field] {
			a, c, k := amount, currency, token
			switch field {
			case "amount":
				a = v
			case "currency":
				c = v
			default:
				k = v
			}
			cs = append(cs, hostile{name: "payment " + field + " " + trim(v), path: "/payments", body: payment(a, c, k), want: 400, field: "/" + field})
		}
	}
	for _, field := range []string{"type", "payment_id"} {
		for _, v := range wrong[field] {
			ty, id := settledType, paymentID
			if field == "type" {
				ty = v
			} else {
				id = v
			}
			cs = append(cs, hostile{name: "settlement " + field + " " + trim(v), path: "/webhooks/bank", body: settlement(ty, id), want: 400, field: "/" + field})
		}
	}
	cs = append(cs,
		hostile{name: "payment without amount", path: "/payments", body: payment("-", currency, token), want: 400, field: "/amount"},
		hostile{name: "payment without currency", path: "/payments", body: payment(amount, "-", token), want: 400, field: "/currency"},
		hostile{name: "payment without card_token", path: "/payments", body: payment(amount, currency, "-"), want: 400, field: "/card_token"},
		hostile{name: "payment with an unknown field", path: "/payments", body: `{"amount":100,"currency":"EUR","card_token":"tok_abc","admin":true}`, want: 400, field: "/admin"},
		hostile{name: "settlement without type", path: "/webhooks/bank", body: settlement("-", paymentID), want: 400, field: "/type"},
		hostile{name: "settlement without payment_id", path: "/webhooks/bank", body: settlement(settledType, "-"), want: 400, field: "/payment_id"},
	)
	notJSON := []string{``, `{`, `{"amount":`, `[]`, `null`, `"x"`, `123`, `{"amount":100}}`, `{"amount":100} trailing`,
		"\xff\xfe{}", `{"amount":100,,}`, `{'amount':100}`, strings.Repeat("[", 100000), `{"a":` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat("}", 20001)}
	for _, body := range notJSON {
		cs = append(cs,
			hostile{name: "payment body " + trim(body), path: "/payments", body: body, want: 400, field: "body"},
			hostile{name: "settlement body " + trim(body), path: "/webhooks/bank", body: body, want: 400, field: "body"})
	}
	huge := `{"amount":100,"currency":"EUR","card_token":"tok_abc","pad":"` + strings.Repeat("x", 4<<20) + `"}`
	cs = append(cs,
		hostile{name: "payment body of 4 MiB", path: "/payments", body: huge, want: 413, field: "body"},
		hostile{name: "settlement body of 4 MiB", path: "/webhooks/bank", body: huge, want: 413, field: "body"},
	)
	good := payment(amount, currency, `"tok_abc"`)
	for _, k := range []struct{ name, key string }{
		{"empty", " "}, {"256 bytes", strings.Repeat("k", 256)}, {"a space", "two words"}, {"not ASCII", "clé"},
		{"a tab", "k\tk"}, {"an open quote", `"unterminated`}, {"sent twice", "k1\x00k2"},
	} {
		cs = append(cs, hostile{name: "payment key " + k.name, path: "/payments", body: good, header: map[string]string{"Idempotency-Key": k.key}, want: 400, field: "Idempotency-Key"})
	}
	cs = append(cs,
		hostile{name: "payment without key", path: "/payments", body: good, header: map[string]string{"Idempotency-Key": ""}, want: 400, field: "Idempotency-Key"},
		hostile{name: "payment as text/plain", path: "/payments", body: good, header: map[string]string{"Content-Type": "text/plain"}, want: 415, field: "application/json"},
		// The example's stand-in for authentication answers 401 naming what to send.
		hostile{name: "payment without a caller", path: "/payments", body: good, header: map[string]string{"Authorization": ""}, want: 401, field: "Authorization"},
	)
	settled := settlement(settledType, paymentID)
	for _, id := range []struct{ name, id string }{
		{"256 bytes", strings.Repeat("m", 256)}, {"not UTF-8", "msg_\xff"}, {"a tab", "msg\t1"},
	} {
		cs = append(cs, hostile{name: "settlement id " + id.name, path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-id": id.id}, want: 400, field: "webhook-id"})
	}
	cs = append(cs,
		hostile{name: "settlement without id", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-id": ""}, want: 400, field: "webhook-id"},
		hostile{name: "settlement unsigned", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-signature": ""}, want: 401, field: "signature"},
		hostile{name: "settlement signature garbage", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-signature": "v1,AAAA"}, want: 401, field: "signature"},
		hostile{name: "settlement signature v2", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-signature": "v2,AAAA"}, want: 401, field: "signature"},
		hostile{name: "settlement signed by another secret", path: "/webhooks/bank", body: settled, secret: "whsec_" + base64.StdEncoding.EncodeToString([]byte("another secret of 24 byt")), want: 401, field: "signature"},
		hostile{name: "settlement signed for another id", path: "/webhooks/bank", body: settled, signID: "msg_other", want: 401, field: "signature"},
		hostile{name: "settlement signed 10 minutes ago", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-timestamp": strconv.FormatInt(time.Now().Add(-10*time.Minute).Unix(), 10)}, want: 401, field: "timestamp"},
		hostile{name: "settlement signed in 10 minutes", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-timestamp": strconv.FormatInt(time.Now().Add(10*time.Minute).Unix(), 10)}, want: 401, field: "timestamp"},
		hostile{name: "settlement timestamp not a number", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-timestamp": "yesterday"}, want: 401, field: "timestamp"},
		hostile{name: "settlement without timestamp", path: "/webhooks/bank", body: settled, header: map[string]string{"webhook-timestamp": ""}, want: 401, field: "timestamp"},
	)
	return cs
}

// trim shortens a value for a case's name.
func trim(s string) string {
	if len(s) > 24 {
		return strconv.Quote(s[:24]) + "…"
	}
	return strconv.Quote(s)
}
