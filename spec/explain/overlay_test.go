package explain

import (
	"testing"

	"github.com/idemgen/idemgen/spec"
)

func TestOverlaySentence(t *testing.T) {
	act := func(file string, i, line int, defaults bool) spec.OverlayAction {
		return spec.OverlayAction{File: file, Index: i, Pos: spec.Position{File: file, Line: line, Col: 5}, Defaults: defaults}
	}
	tests := []struct {
		name string
		acts []spec.OverlayAction
		want string
	}{
		{"none", nil, ""},
		{"one file", []spec.OverlayAction{act("v.yaml", 1, 4, true), act("v.yaml", 2, 12, false)},
			"Set by overlay `v.yaml`: action 1 (line 4, the defaults), action 2 (line 12)."},
		{"two files", []spec.OverlayAction{act("a.yaml", 3, 9, false), act("b.yaml", 1, 4, false)},
			"Set by overlay `a.yaml`: action 3 (line 9); then by overlay `b.yaml`: action 1 (line 4)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overlaySentence(&spec.Operation{Overlays: tt.acts}); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
