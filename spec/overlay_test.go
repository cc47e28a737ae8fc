package spec

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOverlayAnnotatesASpec(t *testing.T) {
	const spec = "testdata/overlay/spec.yaml"
	const ov = "testdata/overlay/overlay.yaml"
	ext := filepath.Join("testdata", "overlay", "paths.yaml")
	doc, err := Load(context.Background(), spec, LoadOptions{Overlays: []string{ov}})
	if err != nil {
		t.Fatal(err)
	}
	at := func(file string, line, col int) Position { return Position{File: file, Line: line, Col: col} }

	create := findOp(t, doc, "POST", "/orders").Contract
	if create == nil {
		t.Fatal("POST /orders has no contract; the overlay should have added one")
	}
	got := []any{create.Pos, create.Retention, create.Scope, create.Effects[0].Name}
	want := []any{
		at(ov, 11, 7),
		set(72*time.Hour, at(ov, 12, 20)),
		set([]string{"tenant"}, at(ov, 7, 16)),
		set("confirmation_email", at(ov, 13, 26)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("createOrder from the overlay (-want +got):\n%s", diff)
	}

	replace := findOp(t, doc, "PUT", "/orders/{id}").Contract
	got = []any{replace.Pos, replace.Retention, replace.Concurrency}
	want = []any{
		at(spec, 13, 7),
		set(time.Hour, at(spec, 14, 20)),
		set(ConcurrencyReject, at(ov, 16, 20)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replaceOrder merged with the overlay (-want +got):\n%s", diff)
	}

	if c := findOp(t, doc, "POST", "/legacy").Contract; c != nil {
		t.Errorf("POST /legacy contract = %+v, want none after the overlay removed it", c)
	}
	pay := findOp(t, doc, "POST", "/payments")
	if pay.Pos.File != ext || pay.Contract == nil || pay.Contract.Mode != set(ModePhased, at(ov, 21, 29)) {
		t.Errorf("POST /payments at %v with contract %+v, want mode phased from %s:21:29", pay.Pos, pay.Contract, ov)
	}
}

func TestOverlayErrors(t *testing.T) {
	spec := `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      responses: {"200": {description: ok}}
`
	tests := []struct {
		name, overlay, want string
	}{
		{"not an overlay", "openapi: 3.0.3\n",
			`o.yaml:1:1: overlay: not an OpenAPI Overlay 1.x document: want overlay: 1.0.0`},
		{"wildcard target", "overlay: 1.0.0\nactions:\n  - target: $.paths[*].post\n    update: {x-idempotency: {}}\n",
			`o.yaml:3:13: actions[0].target: unsupported target "$.paths[*].post": want a simple path such as $.paths['/orders'].post or $.paths./orders.post`},
		{"missing target", "overlay: 1.0.0\nactions:\n  - target: $.paths['/order'].post\n    update: {x-idempotency: {}}\n",
			`o.yaml:3:13: actions[0].target: target "$.paths['/order'].post" matches nothing in the document`},
		{"not a contract", "overlay: 1.0.0\nactions:\n  - target: $.paths['/orders'].post\n    update: {summary: x}\n",
			`o.yaml:4:13: actions[0].update: overlays may only set x-idempotency and x-idempotency-defaults, not "summary"`},
		{"contract on a path item", "overlay: 1.0.0\nactions:\n  - target: $.paths['/orders']\n    update: {x-idempotency: {}}\n",
			`o.yaml:4:13: actions[0].update: x-idempotency belongs on an operation: target it as $.paths['/orders'].post`},
		{"remove outside the contract", "overlay: 1.0.0\nactions:\n  - target: $.paths['/orders'].post\n    remove: true\n",
			`o.yaml:3:13: actions[0].target: overlays may only remove x-idempotency and x-idempotency-defaults, and "$.paths['/orders'].post" is neither`},
		{"unknown action field", "overlay: 1.0.0\nactions:\n  - target: $\n    updates: {}\n",
			`o.yaml:4:5: actions[0]: unknown field "updates" (did you mean "update"?)`},
		{"bad value from overlay", "overlay: 1.0.0\nactions:\n  - target: $.paths['/orders'].post\n    update:\n      x-idempotency: {replay: later}\n",
			`o.yaml:5:31: x-idempotency.replay: unknown value "later" (want stored or current)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := writeSpec(t, "t.yaml", spec)
			op := filepath.Join(filepath.Dir(sp), "o.yaml")
			writeFile(t, op, tt.overlay)
			_, err := Load(context.Background(), sp, LoadOptions{Overlays: []string{op}})
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			got := strings.ReplaceAll(err.Error(), filepath.Dir(sp)+string(filepath.Separator), "")
			if got != tt.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}
