package spec

import (
	"context"
	"testing"
)

// statusHead puts an x-idempotency-status block on GET /a/{key}, its value
// on line 7 after the key's 29 columns.
const statusHead = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a/{key}:
    get:
      responses: {"200": {description: ok}}
      x-idempotency-status: `

func TestStatusRouteDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ name, block, want string }{
		{"not an object", "createOrder", `t.yaml:7:29: x-idempotency-status: want an object with operation, got the string "createOrder"`},
		{"no operation", "{parameter: key}", `t.yaml:7:29: x-idempotency-status: a status route needs operation, the operationId whose attempts it tells`},
		{"empty operation", "{operation: ''}", `t.yaml:7:41: x-idempotency-status.operation: must not be empty`},
		{"unknown field", "{operation: createOrder, paramter: key}",
			`t.yaml:7:54: x-idempotency-status: unknown field "paramter" (did you mean "parameter"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := loadErr(t, statusHead+tc.block+"\n"); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestStatusRouteDecoded(t *testing.T) {
	p := writeSpec(t, "t.yaml", statusHead+"{operation: createOrder}\n")
	doc, err := Load(context.Background(), p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Operations[0].Status
	if s == nil || s.Operation.Value != "createOrder" || s.Parameter.Value != DefaultStatusParameter || s.Parameter.Set {
		t.Fatalf("decoded %+v, want operation createOrder and the default parameter", s)
	}
}
