package spec

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// copyBomb is the reproduction of the overlay that grew a document past
// 60 s and 1.85 GB: six Overlay 1.1 actions that copy the whole document
// into every x-idempotency block, the copies' own blocks included.
var copyBomb = overlayHead + strings.Repeat(`  - {target: "$..['x-idempotency']", copy: "$"}`+"\n", 6)

// overlaySpec is a small spec with one annotated operation, for the
// overlay tests.
const overlaySpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      responses: {"200": {description: ok}}
      x-idempotency: {scope: [tenant]}
`

// TestOverlayRefusesCopyBomb refuses the copy bomb at the copy of the
// action that would cross the budget, with memory bounded (loadMeasured),
// and applies none of the actions after it.
func TestOverlayRefusesCopyBomb(t *testing.T) {
	if len(copyBomb) > 478 {
		t.Fatalf("the overlay is %d bytes, want at most the 478 of the attack", len(copyBomb))
	}
	dir := t.TempDir()
	p := putFile(t, dir, "openapi.yaml", overlaySpec)
	ov := putFile(t, dir, "bomb.yaml", copyBomb)
	_, err := loadMeasured(t, p, LoadOptions{Overlays: []string{ov}})
	e := onlyError(t, err)
	// The copies double the blocks and the document each time: the
	// fourth action would insert more than the 10,000 nodes allowed.
	if e.Pos != (Position{File: ov, Line: 7, Col: 44}) || e.Path != "actions[3].copy" || !strings.Contains(e.Msg, "beyond the 10000 nodes overlays may add") {
		t.Errorf("error %q, want the fourth copy refused at 7:44", e)
	}
}

// TestOverlayBounds refuses an update that targets so many places that
// the copies cross the budget, and one that would nest the document
// deeper than the limit; an update of every operation within the budget
// applies.
func TestOverlayBounds(t *testing.T) {
	var paths strings.Builder
	for i := range 300 {
		fmt.Fprintf(&paths, "  /o%d:\n    post:\n      responses: {\"200\": {description: ok}}\n      x-idempotency: {}\n", i)
	}
	spec := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n" + paths.String()
	// x-deep's value is at level 6 of the document and nests 124 levels.
	deep := strings.Repeat("{a: ", maxDepth-5) + "{}" + strings.Repeat("}", maxDepth-5)
	big := "[" + strings.TrimSuffix(strings.Repeat("x, ", 400), ", ") + "]"
	tests := []struct {
		name, overlay, want string
	}{
		{"many targets", overlayHead + "  - target: $.paths.*.post['x-idempotency']\n    update: {x-notes: " + big + "}\n",
			"beyond the 10000 nodes overlays may add"},
		{"too deep", overlayHead + "  - target: $.paths['/o1'].post['x-idempotency']\n    update: {x-deep: " + deep + "}\n",
			"would nest the document 129 levels deep"},
		{"within the budget", overlayHead + "  - target: $.paths.*.post['x-idempotency']\n    update: {retention: 72h, scope: [tenant], store-failures: [4xx]}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := putFile(t, dir, "openapi.yaml", spec)
			ov := putFile(t, dir, "o.yaml", tt.overlay)
			doc, err := loadMeasured(t, p, LoadOptions{Overlays: []string{ov}})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c := doc.Operations[299].Contract; c == nil || c.Retention.Pos.File != ov {
					t.Errorf("the last operation's contract %+v does not come from the overlay", c)
				}
				return
			}
			e := onlyError(t, err)
			if e.Pos.File != ov || e.Pos.Line != 5 || !strings.Contains(e.Msg, tt.want) {
				t.Errorf("error %q, want one at o.yaml:5 that says %q", strings.ReplaceAll(e.Error(), dir+string(filepath.Separator), ""), tt.want)
			}
		})
	}
}
