package spec

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHeaderNamesNotTokens is the reproduction of the response header
// names that are not HTTP tokens, which check accepted: each is an OAS004
// defect at the name, in the file that holds it, through $refs to a
// response and a parameter in another file; it blocks the annotated
// operation and is a warning on the one without a contract.
func TestHeaderNamesNotTokens(t *testing.T) {
	dir := t.TempDir()
	putFile(t, dir, "shared.yaml", `Limited:
  description: limited
  headers:
    "Retry After": {schema: {type: integer}}
    Retry-After: {schema: {type: integer}}
Trace:
  {name: "trace(id)", in: header, schema: {type: string}}
`)
	p := putFile(t, dir, "openapi.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    parameters:
      - $ref: 'shared.yaml#/Trace'
    post:
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      responses:
        "201":
          description: created
          headers:
            "X-Order Id": {schema: {type: string}}
            "Location:": {schema: {type: string}}
            X-Order-Id: {schema: {type: string}}
        "429": {$ref: 'shared.yaml#/Limited'}
      x-idempotency: {}
    get:
      responses:
        "200":
          description: ok
          headers:
            "é-tag": {schema: {type: string}}
`)
	doc := loadT(t, p)
	var got []string
	for _, d := range doc.Defects {
		got = append(got, fmt.Sprintf("%s:%d:%d %s %s %s", filepath.Base(d.Pos.File), d.Pos.Line, d.Pos.Col, d.Severity, d.Rule, d.Message))
	}
	want := []string{
		`openapi.yaml:14:13 error OAS004 the response 201 header "X-Order Id" of POST /orders is not an HTTP token`,
		`openapi.yaml:15:13 error OAS004 the response 201 header "Location:" of POST /orders is not an HTTP token`,
		`openapi.yaml:24:13 warning OAS004 the response 200 header "é-tag" of GET /orders is not an HTTP token`,
		`shared.yaml:4:5 error OAS004 the response 429 header "Retry After" of POST /orders is not an HTTP token`,
		`shared.yaml:7:10 warning OAS004 the header parameter "trace(id)" of GET /orders is not an HTTP token`,
		`shared.yaml:7:10 error OAS004 the header parameter "trace(id)" of POST /orders is not an HTTP token`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defects (-want +got):\n%s", diff)
	}
	if post := findOp(t, doc, "POST", "/orders"); len(post.Blocked) != 4 {
		t.Errorf("POST /orders is blocked by %d defects, want 4", len(post.Blocked))
	}
}

func TestHTTPToken(t *testing.T) {
	for _, s := range []string{"Idempotency-Key", "X-Request-Id", "!#$%&'*+-.^_`|~09azAZ"} {
		if !httpToken(s) {
			t.Errorf("httpToken(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"", "a b", "a:b", "a\tb", "a\x7f", "é", "a\"b", "(x)", "a/b", "a@b", "a,b", strings.Repeat("a", 10) + "\n"} {
		if httpToken(s) {
			t.Errorf("httpToken(%q) = true, want false", s)
		}
	}
}
