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
		at(ov, 12, 7),
		set(72*time.Hour, at(ov, 13, 20)),
		set([]string{"tenant"}, at(ov, 8, 16)),
		set("confirmation_email", at(ov, 14, 26)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("createOrder from the overlay (-want +got):\n%s", diff)
	}

	replace := findOp(t, doc, "PUT", "/orders/{id}").Contract
	got = []any{replace.Pos, replace.Retention, replace.Concurrency}
	want = []any{
		at(spec, 13, 7),
		set(time.Hour, at(spec, 14, 20)),
		set(ConcurrencyReject, at(ov, 17, 20)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replaceOrder merged with the overlay (-want +got):\n%s", diff)
	}

	if c := findOp(t, doc, "POST", "/legacy").Contract; c != nil {
		t.Errorf("POST /legacy contract = %+v, want none after the overlay removed it", c)
	}
	pay := findOp(t, doc, "POST", "/payments")
	if pay.Pos.File != ext || pay.Contract == nil || pay.Contract.Mode != set(ModePhased, at(ov, 22, 29)) {
		t.Errorf("POST /payments at %v with contract %+v, want mode phased from %s:22:29", pay.Pos, pay.Contract, ov)
	}
	steps := pay.Contract.Steps
	if len(steps) != 2 {
		t.Fatalf("POST /payments steps %+v, want the overlay's two", steps)
	}
	got = []any{steps[0].Name, steps[0].OnUnknown, steps[1].Name, steps[1].External}
	want = []any{
		set("charge_card", at(ov, 22, 52)),
		set(OnUnknownVerify, at(ov, 22, 93)),
		set("record_outcome", at(ov, 22, 122)),
		builtin(false, at(ov, 22, 115)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("createPayment's steps from the overlay (-want +got):\n%s", diff)
	}
}

// overlayHead starts the overlays of the tests below: the version, an
// info object and the actions key, three lines, so actions start on line 4.
const overlayHead = "overlay: 1.1.0\ninfo: {title: t, version: \"1\"}\nactions:\n"

func TestOverlayErrors(t *testing.T) {
	spec := overlaySpec
	tests := []struct {
		name, overlay, want string
	}{
		{"not an overlay", "openapi: 3.0.3\n",
			`o.yaml:1:1: overlay: not an OpenAPI Overlay document: no overlay field (want overlay: 1.0.0 or 1.1.0)`},
		{"unsupported version", "overlay: 2.0.0\ninfo: {title: t, version: \"1\"}\nactions: []\n",
			`o.yaml:1:10: overlay: unsupported Overlay version the string "2.0.0" (want 1.0.x or 1.1.x)`},
		{"no info", "overlay: 1.0.0\nactions: []\n",
			`o.yaml:1:1: info: want an info object with title and version, got nothing`},
		{"info without a title", "overlay: 1.0.0\ninfo: {version: \"1\"}\nactions: []\n",
			`o.yaml:2:7: info.title: want a non-empty string, got nothing`},
		{"unknown top-level field", "overlay: 1.0.0\ninfo: {title: t, version: \"1\"}\naction: []\n",
			`o.yaml:1:1: actions: want a list of actions, got nothing` + "\n" +
				`o.yaml:3:1: unknown field "action" (did you mean "actions"?)`},
		{"invalid JSONPath", overlayHead + "  - target: $.paths[*.post\n    update: {x-idempotency: {}}\n",
			`o.yaml:4:13: actions[0].target: invalid JSONPath "$.paths[*.post": jsonpath: unexpected '.' at position 10`},
		{"hyphen after a dot", overlayHead + "  - target: $.paths['/orders'].post.x-idempotency\n    update: {}\n",
			`o.yaml:4:13: actions[0].target: invalid JSONPath "$.paths['/orders'].post.x-idempotency": jsonpath: invalid number literal at position 26 (RFC 9535 allows only letters, digits and _ after a dot: write ['x-idempotency'] for .x-idempotency)`},
		{"path after a dot", overlayHead + "  - target: $.paths./orders.post\n    update: {}\n",
			`o.yaml:4:13: actions[0].target: invalid JSONPath "$.paths./orders.post": jsonpath: unexpected '/' at position 9 (RFC 9535 allows only letters, digits and _ after a dot: write ['/orders'] for ./orders)`},
		{"target matches nothing", overlayHead + "  - target: $.paths['/order'].post\n    update: {x-idempotency: {}}\n",
			`o.yaml:4:13: actions[0].target: target "$.paths['/order'].post" matches nothing in the document`},
		{"filter matches nothing", overlayHead + "  - target: $.paths.*[?@.operationId == 'nope']\n    update: {x-idempotency: {}}\n",
			`o.yaml:4:13: actions[0].target: target "$.paths.*[?@.operationId == 'nope']" matches nothing in the document`},
		{"not a contract", overlayHead + "  - target: $.paths['/orders'].post\n    update: {summary: x}\n",
			`o.yaml:5:14: actions[0]: target $['paths']['/orders']['post']: overlays may set only x-idempotency and x-idempotency-defaults, not "summary"`},
		{"wildcard reaching a description", overlayHead + "  - target: $.paths.*.*\n    update: {description: x}\n",
			`o.yaml:5:14: actions[0]: target $['paths']['/orders']['post']: overlays may set only x-idempotency and x-idempotency-defaults, not "description"`},
		{"contract on a path item", overlayHead + "  - target: $.paths['/orders']\n    update: {x-idempotency: {}}\n",
			`o.yaml:5:14: actions[0]: target $['paths']['/orders']: x-idempotency belongs on an operation: target it as $.paths['/orders'].post`},
		{"defaults on an operation", overlayHead + "  - target: $.paths.*.post\n    update: {x-idempotency-defaults: {}}\n",
			`o.yaml:5:14: actions[0]: target $['paths']['/orders']['post']: x-idempotency-defaults belongs on the root: target it as $`},
		{"remove outside the contract", overlayHead + "  - target: $.paths['/orders'].post\n    remove: true\n",
			`o.yaml:4:13: actions[0]: target $['paths']['/orders']['post']: overlays may remove only x-idempotency, x-idempotency-defaults or values inside them`},
		{"copy outside the contract", overlayHead + "  - target: $.paths['/orders'].post\n    copy: $.paths['/orders'].post.responses\n",
			`o.yaml:5:11: actions[0]: target $['paths']['/orders']['post']: overlays may set only x-idempotency and x-idempotency-defaults, not "200"`},
		{"copy in Overlay 1.0", "overlay: 1.0.0\ninfo: {title: t, version: \"1\"}\nactions:\n  - target: $\n    copy: $.x\n",
			`o.yaml:5:5: actions[0]: copy is an Overlay 1.1 action: write overlay: 1.1.0`},
		{"copy of several nodes", overlayHead + "  - target: $.paths.*.post['x-idempotency']\n    copy: $.paths.*.post.*\n",
			`o.yaml:5:11: actions[0].copy: copy "$.paths.*.post.*" selects 2 nodes, want exactly one`},
		{"update and remove", overlayHead + "  - target: $\n    update: {}\n    remove: true\n",
			`o.yaml:4:5: actions[0]: an action does one thing; this one has update and remove: true`},
		{"no modifier", overlayHead + "  - target: $\n    remove: false\n",
			`o.yaml:4:5: actions[0]: an action needs update, remove: true or copy`},
		{"unknown action field", overlayHead + "  - target: $\n    updates: {}\n",
			`o.yaml:5:5: actions[0]: unknown field "updates" (did you mean "update"?)`},
		{"incompatible merge", overlayHead + "  - target: $.paths.*.post['x-idempotency']\n    update: {scope: tenant}\n",
			`o.yaml:5:21: actions[0]: cannot merge the string "tenant" into a list at $['paths']['/orders']['post']['x-idempotency']['scope']: remove it first`},
		{"bad value from overlay", overlayHead + "  - target: $.paths['/orders'].post\n    update:\n      x-idempotency: {replay: later}\n",
			`o.yaml:6:31: x-idempotency.replay: unknown value "later" (want stored or current)`},
		{"bad step from overlay", overlayHead + "  - target: $.paths['/orders'].post\n    update:\n      x-idempotency: {steps: [{name: charge, timeout: soon}]}\n",
			`o.yaml:6:55: x-idempotency.steps[0].timeout: invalid duration "soon": want a duration such as 90m, 72h, 30d or 1d12h`},
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
