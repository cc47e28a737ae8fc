package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretSpec marks the refund's provider reference writeOnly, a field no
// name rule knows as a secret.
const secretSpec = `openapi: 3.0.3
info: {title: orders, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      x-idempotency:
        scope: []
        effects:
          - name: refund
            payload: '#/components/schemas/Refund'
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {sku: {type: string}}}
      responses:
        "201": {description: created}
components:
  schemas:
    Refund:
      type: object
      properties:
        amount: {type: integer}
        currency: {type: string}
        card_number: {type: string}
        provider: {type: object, properties: {token: {type: string}}}
        currency_note: {type: string, format: password}
`

// With --spec, ops hides the fields the spec marks writeOnly or format:
// password besides those named like secrets; an unusable --spec, or
// --overlay without it, is refused before the database is read.
func TestOpsSpecHidesItsSecretFields(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), gapsSeed); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(t.Context(), `UPDATE support.idempotency_outbox SET payload = convert_to('{"amount":1250,"currency":"EUR","currency_note":"ref-77"}', 'UTF8')
		WHERE operation_id = '22222222-2222-4222-8222-222222222222' AND seq = 2`); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, []byte(secretSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ops("show", "--schema", "support", "--spec", path, "22222222-2222-4222-8222-222222222222")
	if code != exitOK || strings.Contains(out, "ref-77") || !strings.Contains(out, `payload: {"amount":1250,"currency":"EUR","currency_note":"[redacted]"}`) {
		t.Errorf("with --spec: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	if code, out, _ := ops("show", "--schema", "support", "22222222-2222-4222-8222-222222222222"); code != exitOK || !strings.Contains(out, "ref-77") {
		t.Errorf("without --spec the field is not known as a secret: exit %d\n%s", code, out)
	}
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	if err := os.WriteFile(broken, []byte("openapi: 3.0.3\npaths: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := ops("show", "--schema", "support", "--spec", broken, "22222222-2222-4222-8222-222222222222"); code != exitUnusable ||
		!strings.Contains(errOut, "broken.yaml:") {
		t.Errorf("an unusable --spec: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := ops("list", "--schema", "support", "--overlay", "x.yaml"); code != exitUnusable || !strings.Contains(errOut, "pass --spec too") {
		t.Errorf("--overlay without --spec: exit %d, stderr %q", code, errOut)
	}
}

// ops list --link finds the operation whose answer linked a resource, by
// its Location or its last segments.
func TestOpsListFindsByLink(t *testing.T) {
	pool := opsDB(t)
	if _, err := pool.Exec(t.Context(), `UPDATE support.idempotency_record SET response_headers = '{"Location": ["/orders/42"]}'
		WHERE operation_id = '22222222-2222-4222-8222-222222222222'`); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"42", "/orders/42", "orders/42"} {
		code, out, errOut := ops("list", "--schema", "support", "--link", link)
		if code != exitOK || !strings.Contains(out, "22222222-2222-4222-8222-222222222222") || strings.Contains(out, "11111111-1111-4111-8111-111111111111") {
			t.Errorf("--link %s: exit %d, stderr %q, stdout:\n%s", link, code, errOut, out)
		}
	}
	if code, _, errOut := ops("list", "--schema", "support", "--link", "4 2"); code != exitUnusable || !strings.Contains(errOut, "without spaces") {
		t.Errorf("--link with a space: exit %d, stderr %q", code, errOut)
	}
}
