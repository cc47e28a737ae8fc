package generator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// verdictSpec is an annotated POST /orders whose body, path and
// x-idempotency block a case fills in.
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
                sku: {type: string}
                extra: {oneOf: [{type: string}, {type: integer}]}
      responses:
        "201": {description: created}
      x-idempotency: BLOCK
`

// TestPlannerVerdict checks each planner rule on a spec that breaks only
// it: one error diagnostic with the rule, at the position of what causes
// it.
func TestPlannerVerdict(t *testing.T) {
	for _, tc := range []struct {
		rule, path, params, media, block, at string
	}{
		{rule: "", block: "{}"},
		{rule: RulePhased, block: "{mode: phased, lease: 1m}", at: "x-idempotency: {mode"},
		{rule: RuleReplayCurrent, block: "{replay: current}", at: "x-idempotency: {replay"},
		{rule: RuleUnsupportedBody, media: "multipart/form-data", block: "{}"},
		{rule: RuleFingerprintPointer, block: "{fingerprint: {exclude: [/extra/a]}}", at: "x-idempotency: {fingerprint"},
		{rule: RuleRoute, path: "/orders/{a}{b}", params: "        - {name: a, in: path, required: true, schema: {type: string}}\n        - {name: b, in: path, required: true, schema: {type: string}}\n", block: "{}", at: "    post:"},
	} {
		name := tc.rule
		if name == "" {
			name = "clean"
		}
		t.Run(name, func(t *testing.T) {
			src := strings.NewReplacer("PATH", or(tc.path, "/orders"), "PARAMS", tc.params, "MEDIA", or(tc.media, "application/json"), "BLOCK", tc.block).Replace(verdictSpec)
			file := filepath.Join(t.TempDir(), "spec.yaml")
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			doc, err := spec.Load(context.Background(), file, spec.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			diags := PlannerVerdict(doc)
			if tc.rule == "" {
				if len(diags) > 0 {
					t.Fatalf("diagnostics on a clean spec: %v", diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Rule != tc.rule || diags[0].Severity != spec.SeverityError || diags[0].Pos.File != file || diags[0].Pos.Line == 0 {
				t.Fatalf("diagnostics %+v, want one positioned %s error", diags, tc.rule)
			}
			if tc.at != "" {
				if want := lineOf(t, file, tc.at); diags[0].Pos.Line != want {
					t.Errorf("%s at line %d, want %d (%q)", tc.rule, diags[0].Pos.Line, want, tc.at)
				}
			}
		})
	}
}

// or returns s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
