package spec

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeStepErrors(t *testing.T) {
	tests := []struct {
		name  string
		block string
		want  string
	}{
		{"steps not a list", "steps: charge_card",
			`t.yaml:8:16: x-idempotency.steps: want a list of steps such as [{name: charge_card, external: true, on-unknown: verify, timeout: 10s}], got the string "charge_card"`},
		{"step not an object", "steps: [charge_card]",
			`t.yaml:8:17: x-idempotency.steps[0]: want an object with a name, got the string "charge_card"`},
		{"step without name", "steps: [{external: true}]",
			`t.yaml:8:17: x-idempotency.steps[0]: a step needs a name`},
		{"step unknown field", "steps: [{name: charge, extrnal: true}]",
			`t.yaml:8:32: x-idempotency.steps[0]: unknown field "extrnal" (did you mean "external"?)`},
		{"step external not bool", `steps: [{name: charge, external: "yes"}]`,
			`t.yaml:8:42: x-idempotency.steps[0].external: want true or false, got the string "yes"`},
		{"step on-unknown", "steps: [{name: charge, on-unknown: maybe}]",
			`t.yaml:8:44: x-idempotency.steps[0].on-unknown: unknown value "maybe" (want retry, verify or halt)`},
		{"step timeout", "steps: [{name: charge, timeout: soon}]",
			`t.yaml:8:41: x-idempotency.steps[0].timeout: invalid duration "soon": want a duration such as 90m, 72h, 30d or 1d12h`},
		{"step output a string", "steps: [{name: charge, output: '#/components/schemas/Charge'}]",
			`t.yaml:8:40: x-idempotency.steps[0].output: want a schema reference such as {$ref: '#/components/schemas/Charge'}, got the string "#/components/schemas/Charge"`},
		{"step output inline", "steps: [{name: charge, output: {type: object}}]",
			`t.yaml:8:40: x-idempotency.steps[0].output: want a schema reference such as {$ref: '#/components/schemas/Charge'}: declare the state's schema under components/schemas and refer to it, since it becomes a named Go type`},
		{"step output beside $ref", "steps: [{name: charge, output: {$ref: '#/components/schemas/Charge', type: object}}]",
			`t.yaml:8:78: x-idempotency.steps[0].output: unknown field "type"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := loadErr(t, specHead+"        "+tt.block+"\n")
			if got != tt.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

// TestLoadSteps checks that steps decode with a position on every value,
// that a step's unset external is a built-in false at the step, and that
// steps come from the defaults as effects do: an operation's own list,
// empty or not, replaces them.
func TestLoadSteps(t *testing.T) {
	p := writeSpec(t, "t.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
x-idempotency-defaults:
  lease: 1m
  steps: [{name: record_order}]
paths:
  /payments:
    post:
      responses: {"201": {description: ok}}
      x-idempotency:
        mode: phased
        steps:
          - name: record_payment
            output: {$ref: '#/components/schemas/PaymentRecord'}
          - name: charge_card
            external: true
            on-unknown: verify
            timeout: 10s
          - {name: record_outcome, external: false}
  /orders:
    post:
      responses: {"201": {description: ok}}
      x-idempotency: {mode: phased}
  /refunds:
    post:
      responses: {"201": {description: ok}}
      x-idempotency: {steps: []}
`)
	doc := loadT(t, p)
	at := func(line, col int) Position { return Position{File: p, Line: line, Col: col} }
	want := []Step{
		{Pos: at(13, 13), Name: set("record_payment", at(13, 19)), External: builtin(false, at(13, 13)),
			Output: set("#/components/schemas/PaymentRecord", at(14, 28))},
		{Pos: at(15, 13), Name: set("charge_card", at(15, 19)), External: set(true, at(16, 23)),
			OnUnknown: set(OnUnknownVerify, at(17, 25)), Timeout: set(10*time.Second, at(18, 22))},
		{Pos: at(19, 13), Name: set("record_outcome", at(19, 20)), External: set(false, at(19, 46))},
	}
	if diff := cmp.Diff(want, findOp(t, doc, "POST", "/payments").Contract.Steps); diff != "" {
		t.Errorf("POST /payments steps (-want +got):\n%s", diff)
	}
	fromDefaults := []Step{{Pos: at(5, 11), Name: set("record_order", at(5, 18)), External: builtin(false, at(5, 11))}}
	if diff := cmp.Diff(fromDefaults, findOp(t, doc, "POST", "/orders").Contract.Steps); diff != "" {
		t.Errorf("POST /orders steps (-want +got):\n%s", diff)
	}
	if steps := findOp(t, doc, "POST", "/refunds").Contract.Steps; len(steps) != 0 {
		t.Errorf("POST /refunds steps = %+v, want the operation's empty list to replace the defaults'", steps)
	}
}
