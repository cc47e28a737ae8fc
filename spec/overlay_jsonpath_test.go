package spec

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOverlayWildcardsAndFilters applies an Overlay 1.1 whose targets are
// wildcards, filters and recursive descent, with a list append, a copy and
// a removal, each action seeing the result of the ones before; values keep
// the positions of the overlay lines they came from, and each operation
// knows which actions set its contract.
func TestOverlayWildcardsAndFilters(t *testing.T) {
	const spec = "testdata/overlay/spec.yaml"
	const ov = "testdata/overlay/wildcards.overlay.yaml"
	doc, err := Load(context.Background(), spec, LoadOptions{Overlays: []string{ov}})
	if err != nil {
		t.Fatal(err)
	}
	at := func(line, col int) Position { return Position{File: ov, Line: line, Col: col} }
	action := func(i, line int, defaults bool) OverlayAction {
		return OverlayAction{File: ov, Index: i, Pos: at(line, 5), Defaults: defaults}
	}
	names := func(c *Contract) []string {
		var out []string
		for _, e := range c.Effects {
			out = append(out, e.Name.Value+"@"+e.Name.Pos.String())
		}
		return out
	}

	create := findOp(t, doc, "POST", "/orders")
	if create.Contract == nil {
		t.Fatal("POST /orders has no contract")
	}
	got := []any{create.Contract.Scope, create.Contract.Retention, create.Contract.Tombstone, names(create.Contract), create.Overlays}
	want := []any{
		set([]string{"tenant"}, at(12, 16)),
		set(72*time.Hour, at(15, 18)),
		set(7*24*time.Hour, at(7, 43)),
		[]string{"confirmation_email@" + at(16, 24).String(), "sms@" + at(18, 20).String()},
		[]OverlayAction{action(1, 5, true), action(2, 8, false), action(3, 13, false), action(4, 17, false)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("POST /orders (-want +got):\n%s", diff)
	}

	// The copy takes createOrder's block as the actions before left it,
	// with the positions of the overlay lines it was written on.
	replace := findOp(t, doc, "PUT", "/orders/{id}")
	got = []any{replace.Contract.Retention, replace.Contract.Scope, names(replace.Contract), replace.Overlays}
	want = []any{
		set(72*time.Hour, at(15, 18)),
		set([]string{"tenant"}, at(12, 16)),
		[]string{"confirmation_email@" + at(16, 24).String(), "sms@" + at(18, 20).String()},
		[]OverlayAction{action(1, 5, true), action(6, 22, false)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PUT /orders/{id} (-want +got):\n%s", diff)
	}

	// The wildcard and the recursive descent reach the path item kept in
	// paths.yaml; the lists concatenate.
	pay := findOp(t, doc, "POST", "/payments")
	got = []any{pay.Pos.File, pay.Contract.Scope.Value, pay.Overlays}
	want = []any{
		filepath.Join("testdata", "overlay", "paths.yaml"),
		[]string{"tenant", "merchant"},
		[]OverlayAction{action(1, 5, true), action(2, 8, false), action(5, 19, false)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("POST /payments (-want +got):\n%s", diff)
	}

	if c := findOp(t, doc, "POST", "/legacy").Contract; c != nil {
		t.Errorf("POST /legacy contract = %+v, want none after the overlay removed it", c)
	}
}

// TestOverlayUnmatchedWarn checks that with UnmatchedWarn an action that
// matches nothing is a warning at its target and the rest still apply.
func TestOverlayUnmatchedWarn(t *testing.T) {
	sp := writeSpec(t, "t.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      responses: {"200": {description: ok}}
`)
	op := filepath.Join(filepath.Dir(sp), "o.yaml")
	writeFile(t, op, overlayHead+"  - target: $.paths['/nope'].post\n    update: {x-idempotency: {}}\n  - target: $.paths.*.post\n    update: {x-idempotency: {}}\n")
	if _, err := Load(context.Background(), sp, LoadOptions{Overlays: []string{op}}); err == nil {
		t.Fatal("Load succeeded by default, want an error for the unmatched target")
	}
	doc, err := Load(context.Background(), sp, LoadOptions{Overlays: []string{op}, Unmatched: UnmatchedWarn})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range doc.Warnings {
		got = append(got, strings.ReplaceAll(w.Error(), filepath.Dir(sp)+string(filepath.Separator), ""))
	}
	want := []string{`o.yaml:4:13: actions[0].target: target "$.paths['/nope'].post" matches nothing in the document`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if findOp(t, doc, "POST", "/orders").Contract == nil {
		t.Error("POST /orders has no contract; the second action should have applied")
	}
}

// TestOverlaySeveralFiles checks that overlays apply in order, the second
// seeing what the first set.
func TestOverlaySeveralFiles(t *testing.T) {
	sp := writeSpec(t, "t.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      responses: {"200": {description: ok}}
`)
	dir := filepath.Dir(sp)
	first, second := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	writeFile(t, first, overlayHead+"  - target: $.paths.*.post\n    update: {x-idempotency: {retention: 48h}}\n")
	writeFile(t, second, overlayHead+"  - target: $.paths.*.post['x-idempotency']\n    update: {retention: 72h}\n")
	doc, err := Load(context.Background(), sp, LoadOptions{Overlays: []string{first, second}})
	if err != nil {
		t.Fatal(err)
	}
	op := findOp(t, doc, "POST", "/orders")
	got := []any{op.Contract.Retention, len(op.Overlays), op.Overlays[1].File}
	want := []any{set(72*time.Hour, Position{File: second, Line: 5, Col: 25}), 2, second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestOverlaySharedPathItem checks that a path item referenced from two
// paths, one node reached by two normalized paths, is updated once, and
// that both paths see the result.
func TestOverlaySharedPathItem(t *testing.T) {
	sp := writeSpec(t, "t.yaml", `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /a:
    $ref: '#/components/pathItems/Item'
  /b:
    $ref: '#/components/pathItems/Item'
components:
  pathItems:
    Item:
      post:
        responses: {"200": {description: ok}}
        x-idempotency: {scope: [tenant]}
`)
	op := filepath.Join(filepath.Dir(sp), "o.yaml")
	writeFile(t, op, overlayHead+"  - target: $.paths.*.post['x-idempotency']\n    update: {scope: [user]}\n  - target: $.paths[?@.post['x-idempotency'].scope[1] == 'user'].post['x-idempotency']\n    update: {retention: 48h}\n")
	doc, err := Load(context.Background(), sp, LoadOptions{Overlays: []string{op}})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/a", "/b"} {
		c := findOp(t, doc, "POST", path).Contract
		if got := []any{c.Scope.Value, c.Retention.Value}; !cmp.Equal(got, []any{[]string{"tenant", "user"}, 48 * time.Hour}) {
			t.Errorf("POST %s: scope and retention %v, want [tenant user] and 48h", path, got)
		}
	}
}
