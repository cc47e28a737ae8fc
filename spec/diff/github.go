package diff

import (
	"fmt"
	"io"
	"strings"
)

// writeGitHub writes one workflow command per finding, which GitHub Actions
// shows as an annotation at the head position (the base position for a
// removal): error for breaking, warning for risky, notice for safe.
//
//	::error file=openapi.yaml,line=42,col=11,title=fingerprint-field-added::POST /orders: include adds /delivery. A retry …
func writeGitHub(w io.Writer, r Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		at := f.At()
		props := []string{}
		if at.File != "" {
			props = append(props, "file="+escapeProperty(at.File))
		}
		if at.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", at.Line))
		}
		if at.Col > 0 {
			props = append(props, fmt.Sprintf("col=%d", at.Col))
		}
		props = append(props, "title="+escapeProperty(f.Rule))
		msg := fmt.Sprintf("%s: %s. %s", f.Operation, f.Change, f.InFlight)
		fmt.Fprintf(&b, "::%s %s::%s\n", githubCommands[f.Level], strings.Join(props, ","), dataEscaper.Replace(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// githubCommands maps a level to the workflow command that annotates with
// it.
var githubCommands = map[Level]string{Breaking: "error", Risky: "warning", Safe: "notice"}

// dataEscaper and propertyEscaper escape a workflow command's message and
// property values as the Actions runner expects.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// escapeProperty escapes a workflow command property value.
func escapeProperty(s string) string {
	return propertyEscaper.Replace(s)
}
