package explain

import (
	"fmt"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// overlaySentence says which overlay actions set the contract of op, such
// as "Set by overlay `vendor.overlay.yaml`: action 1 (line 6, the
// defaults), action 2 (line 12).", or "" when the spec itself holds the
// whole contract.
func overlaySentence(op *spec.Operation) string {
	var files []string
	actions := map[string][]string{}
	for _, a := range op.Overlays {
		if _, seen := actions[a.File]; !seen {
			files = append(files, a.File)
		}
		what := fmt.Sprintf("action %d (line %d)", a.Index, a.Pos.Line)
		if a.Defaults {
			what = fmt.Sprintf("action %d (line %d, the defaults)", a.Index, a.Pos.Line)
		}
		actions[a.File] = append(actions[a.File], what)
	}
	if len(files) == 0 {
		return ""
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("overlay `%s`: %s", f, strings.Join(actions[f], ", "))
	}
	return "Set by " + strings.Join(parts, "; then by ") + "."
}
