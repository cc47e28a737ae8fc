package generator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// verdictSpec is an annotated POST /orders whose path, parameters, body
// media type, body properties and x-idempotency block a case fills in.
const verdictSpec = `openapi: 3.1.0
info: {title: verdict, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
security:
  - bearer: []
x-idempotency-defaults:
  scope: [tenant]
paths:
  PATH:
    post:
      operationId: createOrder
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
PARAMS      requestBody:
        required: true
        content:
          MEDIA:
            schema:
              type: object
              required: [sku]
              properties:
                sku: SKU
                extra:
                  oneOf:
                    - {type: object, required: [a], properties: {a: {type: string}}}
                    - {type: object, required: [b], properties: {b: {type: string}}}
                meta: {type: object, additionalProperties: true}
                tags:
                  type: object
                  additionalProperties:
                    type: object
                    properties:
                      b: {type: string}
                      list: {type: array, items: {type: string}}
                items:
                  type: array
                  items: {type: object, properties: {quantity: {type: integer}}}
                delivery: {type: object, properties: {city: {type: string}}}
      responses:
        "201": {description: created}
      x-idempotency: BLOCK
`

// verdictCase is a verdictSpec filled in; empty fields keep the clean
// spec's values.
type verdictCase struct {
	path, params, media, sku, block string
}

// loadSource writes src as a spec and loads it.
func loadSource(t testing.TB, src string) *spec.Document {
	t.Helper()
	file := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := spec.Load(t.Context(), file, spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// judgeSource loads src as a spec and judges it; it returns the spec's
// path too.
func judgeSource(t *testing.T, src string) (*Judgement, string) {
	t.Helper()
	doc := loadSource(t, src)
	return Judge(doc, spec.CheckOptions{}), doc.Path
}

// judgeCase judges the verdictSpec a case fills in.
func judgeCase(t *testing.T, c verdictCase) (*Judgement, string) {
	t.Helper()
	src := strings.NewReplacer("PATH", or(c.path, "/orders"), "PARAMS", c.params, "MEDIA", or(c.media, "application/json"),
		"SKU", or(c.sku, "{type: string}"), "BLOCK", or(c.block, "{}")).Replace(verdictSpec)
	return judgeSource(t, src)
}

// TestJudgeRefusals checks each planner rule on a spec that breaks only
// it: positioned errors of the rule, at what causes them, each the one
// operation's own, and no plan; the clean spec gets a plan and nothing
// else.
func TestJudgeRefusals(t *testing.T) {
	formArray := "application/x-www-form-urlencoded:\n            schema: {type: array, items: {type: string}}\n          application/xml"
	tests := []struct {
		name string
		c    verdictCase
		rule string
		// at holds the text of the line of each refusal, in order.
		at []string
		// message is part of the first refusal's message.
		message string
	}{
		{name: "clean"},
		{name: "replay current is generated", c: verdictCase{block: "{replay: current}"}},
		{name: "multipart body is generated", c: verdictCase{media: "multipart/form-data", sku: "{type: string, format: binary}"}},
		{name: "octet-stream body", c: verdictCase{media: "application/octet-stream"}, rule: RuleUnsupportedBody, at: []string{"requestBody:"}, message: "is application/octet-stream: only JSON"},
		{name: "multipart array of files", c: verdictCase{media: "multipart/form-data", sku: "{type: array, items: {type: string, format: binary}}"}, rule: RuleUnsupportedBody, at: []string{"sku: {type: array"},
			message: "property sku of the multipart request body of createOrder (POST /orders) holds files below its top level"},
		{name: "form body not an object", c: verdictCase{media: formArray}, rule: RuleUnsupportedBody, at: []string{"application/x-www-form-urlencoded:"}, message: "the form request body of createOrder (POST /orders) is not an object with properties: only those decode from a form, so the operation would get no handler"},
		{name: "pointer into a union", c: verdictCase{block: "{fingerprint: {exclude: [/extra/a]}}"}, rule: RulePointerNotWalkable, at: []string{"x-idempotency: {fingerprint"},
			message: "fingerprint.exclude /extra/a cannot be generated: /extra is a oneOf/anyOf union, which generated code keeps whole and cannot walk into"},
		{
			name: "pointers generated code cannot follow",
			c: verdictCase{block: `
        natural-key: [/meta/shop]
        fingerprint:
          include: [/meta/shop, /extra/a]
          exclude: [/meta/*/x, /items/0/quantity, /delivery/*/city, /tags/a/b]
          unordered: [/meta/list, /tags/a/list]`},
			rule:    RulePointerNotWalkable,
			at:      []string{"natural-key:", "include:", "include:", "exclude:", "exclude:", "exclude:", "exclude:", "unordered:", "unordered:"},
			message: "natural-key /meta/shop cannot be generated: /meta is a free-form value, which generated code keeps whole and cannot select from",
		},
		{name: "two parameters in one segment", c: verdictCase{path: "/orders/{a}{b}", params: "        - {name: a, in: path, required: true, schema: {type: string}}\n        - {name: b, in: path, required: true, schema: {type: string}}\n"},
			rule: RuleRoute, at: []string{"    post:"}, message: "has two parameters with nothing between them"},
		{name: "x-go-type that is no Go type", c: verdictCase{sku: "{type: string, x-go-type: 'not a type'}"}, rule: RuleSchemaNotGo, at: []string{"sku:"}, message: "is not a Go type name"},
		{name: "pattern RE2 cannot compile", c: verdictCase{sku: "{type: string, pattern: '^(?=a)'}"}, rule: RulePattern, at: []string{"sku:"}, message: "is not a regular expression Go's RE2 accepts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, file := judgeCase(t, tt.c)
			errs := j.Errors()
			if tt.rule == "" {
				if len(j.Diagnostics) > 0 || j.Plan == nil {
					t.Fatalf("diagnostics %v, plan %v on a clean spec", j.Diagnostics, j.Plan)
				}
				return
			}
			if len(errs) != len(tt.at) || j.Plan != nil {
				t.Fatalf("errors %v, plan %v; want %d of %s and no plan", errs, j.Plan, len(tt.at), tt.rule)
			}
			op := j.Doc.Operations[0]
			if !slices.Equal(j.Unfit[op], errs) || len(j.Unfit) != 1 {
				t.Errorf("the operation's own errors %v, want every error %v", j.Unfit[op], errs)
			}
			for i, d := range errs {
				if d.Rule != tt.rule || d.Pos.File != file || d.Hint == "" {
					t.Errorf("error %d: %+v, want a positioned %s with a hint", i, d, tt.rule)
				}
				if want := lineOf(t, file, tt.at[i]); d.Pos.Line != want {
					t.Errorf("error %d (%s) at line %d, want %d (%q)", i, d.Message, d.Pos.Line, want, tt.at[i])
				}
			}
			if !strings.Contains(errs[0].Message, tt.message) {
				t.Errorf("message %q does not contain %q", errs[0].Message, tt.message)
			}
		})
	}
}

// TestJudgePlansOperationsWithoutSpecErrors checks that the planner
// judges every annotated operation the spec's rules find no error in, so
// a spec with an error shows the planner's refusals of its other
// operations at once, and never judges one with a spec error.
func TestJudgePlansOperationsWithoutSpecErrors(t *testing.T) {
	src := strings.NewReplacer("PATH", "/orders", "PARAMS", "", "MEDIA", "application/json", "SKU", "{type: string}",
		"BLOCK", "{fingerprint: {include: [/nope], exclude: [/extra/a]}}").Replace(verdictSpec) + `  /refunds:
    post:
      operationId: createRefund
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object}
      responses:
        "201": {description: created}
      x-idempotency: {replay: current}
`
	j, _ := judgeSource(t, src)
	var rules []string
	for _, d := range j.Errors() {
		rules = append(rules, d.Rule)
	}
	// createOrder's missing pointer is the spec's IDEM001; its pointer
	// into a union is not judged beside it. createRefund is judged.
	if want := []string{"IDEM001", RuleUnsupportedBody}; !slices.Equal(rules, want) {
		t.Fatalf("errors %v, want %v", rules, want)
	}
	for _, op := range j.Doc.Operations {
		if own := j.Unfit[op]; len(own) != 1 {
			t.Errorf("%s: own errors %v, want one", op.ID, own)
		}
	}
}

// TestJudgeWebhookAndCollision checks the refusals that need more than
// one operation's spec: a webhook with a parameter (refused, and its body
// planned as an operation's is) and
// two operationIds that give one Go name (the later one's own error).
func TestJudgeWebhookAndCollision(t *testing.T) {
	j, file := judgeSource(t, `openapi: 3.1.0
info: {title: verdict, version: "1"}
paths:
  /a:
    post:
      operationId: create_thing
      responses: {"204": {description: done}}
      x-idempotency: {scope: []}
  /b:
    post:
      operationId: createThing
      responses: {"204": {description: done}}
      x-idempotency: {scope: []}
webhooks:
  thing:
    post:
      parameters: [{name: X-Shop, in: header, schema: {type: string}}]
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object}
      responses: {"204": {description: done}}
      x-idempotency: {scope: [], replay: current}
`)
	got := map[string][]string{}
	for op, diags := range j.Unfit {
		for _, d := range diags {
			got[op.Method+" "+op.Path] = append(got[op.Method+" "+op.Path], d.Rule)
		}
	}
	want := map[string][]string{"POST /b": {RuleNameCollision}, "POST thing": {RuleUnsupportedBody, RuleWebhook}}
	if len(got) != len(want) || !slices.Equal(got["POST /b"], want["POST /b"]) || !slices.Equal(got["POST thing"], want["POST thing"]) {
		t.Fatalf("own errors %v, want %v", got, want)
	}
	if j.Plan != nil || len(j.Errors()) != 3 {
		t.Errorf("errors %v, plan %v; want 3 and no plan", j.Errors(), j.Plan)
	}
	if d := j.Unfit[j.Doc.Operations[1]][0]; !strings.Contains(d.Message, "create_thing (POST /a) at "+file+":5:5") {
		t.Errorf("collision %q does not name the other operation's position", d.Message)
	}
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
