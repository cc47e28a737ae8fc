package spec

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDanglingRefsBlockOnlyTheirOperations(t *testing.T) {
	const file = "testdata/dangling.yaml"
	doc := loadT(t, file)
	var got []string
	for _, d := range doc.Defects {
		got = append(got, fmt.Sprintf("%s %s %s", d.Pos, d.Rule, d.Message))
	}
	want := []string{
		file + `:20:23 OAS001 $ref "missing.yaml#/B" points nowhere`,
		file + `:30:17 OAS001 $ref "#/components/schemas/Nope" points nowhere`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defects (-want +got):\n%s", diff)
	}
	blocked := map[string][]string{}
	for _, op := range doc.Operations {
		var ids []string
		for _, d := range op.Blocked {
			ids = append(ids, d.Pos.String())
		}
		blocked[op.Method+" "+op.Path] = ids
	}
	wantBlocked := map[string][]string{
		"POST /a": {file + ":30:17"},
		"POST /b": {file + ":20:23"},
		"GET /c":  nil,
	}
	if diff := cmp.Diff(wantBlocked, blocked); diff != "" {
		t.Errorf("blocked (-want +got):\n%s", diff)
	}
	if c := findOp(t, doc, "POST", "/b").Contract; c == nil || c.Pos.Line != 13 {
		t.Errorf("POST /b contract = %+v, want one decoded at line 13", c)
	}
}

func TestUndeclaredPathParameters(t *testing.T) {
	text := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /vendors/{vendor_id}:
    put:
      parameters:
        - {name: shop_id, in: path, required: true, schema: {type: string}}
      responses: {"200": {description: ok}}
    get:
      parameters:
        - {name: vendor_id, in: path, required: true, schema: {type: string}}
      responses: {"200": {description: ok}}
`
	p := writeSpec(t, "t.yaml", text)
	doc := loadT(t, p)
	var got []string
	for _, d := range doc.Defects {
		got = append(got, fmt.Sprintf("%d:%d %s %s", d.Pos.Line, d.Pos.Col, d.Rule, d.Message))
	}
	want := []string{
		`5:5 OAS002 PUT /vendors/{vendor_id} declares path parameter "shop_id", which its path does not have`,
		`5:5 OAS002 PUT /vendors/{vendor_id} does not declare its path parameter "vendor_id"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defects (-want +got):\n%s", diff)
	}
	if op := findOp(t, doc, "GET", "/vendors/{vendor_id}"); len(op.Blocked) != 0 {
		t.Errorf("GET is blocked by %v, want nothing", op.Blocked)
	}
	if op := findOp(t, doc, "PUT", "/vendors/{vendor_id}"); len(op.Blocked) != 2 {
		t.Errorf("PUT is blocked by %d defects, want 2", len(op.Blocked))
	}
}

func TestInvalidOperationIsADefect(t *testing.T) {
	text := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    post:
      parameters:
        - {name: q, in: nowhere, schema: {type: string}}
      responses: {"200": {description: ok}}
  /b:
    post:
      responses: {"200": {description: ok}}
`
	p := writeSpec(t, "t.yaml", text)
	doc := loadT(t, p)
	if len(doc.Defects) != 1 || doc.Defects[0].Rule != RuleInvalidOperation || doc.Defects[0].Pos.Line != 5 {
		t.Fatalf("defects = %+v, want one OAS003 at line 5", doc.Defects)
	}
	if op := findOp(t, doc, "POST", "/b"); len(op.Blocked) != 0 {
		t.Errorf("POST /b is blocked by %v, want nothing", op.Blocked)
	}
}

func TestJSONSurrogateEscapes(t *testing.T) {
	text := `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
"paths": {"/a": {"post": {
  "description": "thumbs \ud83d\udc4d and lone \udc4d",
  "x-idempotency": {"retention": "2d"},
  "responses": {"200": {"description": "ok"}}}}}}
`
	p := writeSpec(t, "t.json", text)
	doc := loadT(t, p)
	c := doc.Operations[0].Contract
	if c == nil || c.Retention.Pos.Line != 4 || c.Retention.Pos.Col != 34 {
		t.Fatalf("contract = %+v, want retention at 4:34", c)
	}
	if got, want := doc.Operations[0].Op.Description, "thumbs 👍 and lone \ufffd"; got != want {
		t.Errorf("description = %q, want %q", got, want)
	}
}
