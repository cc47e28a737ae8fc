package diff

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// writeGitHub writes one workflow command per finding, which GitHub Actions
// shows as an annotation at the head position (the base position for a
// removal): error for breaking, warning for risky, notice for safe.
//
//	::error file=openapi.yaml,line=42,col=11,title=fingerprint-field-added::POST /orders: include adds /delivery. A retry …
//
// A problem of a side (why it is unusable, an overlay warning) is an
// error or warning annotation of its rule.
func writeGitHub(w io.Writer, r Report) error {
	var b strings.Builder
	for _, p := range r.Problems {
		command := "warning"
		if p.Severity == spec.SeverityError {
			command = "error"
		}
		annotate(&b, command, p.Pos, p.Rule, p.Side+": "+p.Message)
	}
	for _, f := range r.Findings {
		annotate(&b, githubCommands[f.Level], f.At(), f.Rule, fmt.Sprintf("%s: %s. %s", f.Operation, f.Change, f.InFlight))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// annotate writes one workflow command at a position.
func annotate(b *strings.Builder, command string, at spec.Position, title, msg string) {
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
	props = append(props, "title="+escapeProperty(title))
	fmt.Fprintf(b, "::%s %s::%s\n", command, strings.Join(props, ","), dataEscaper.Replace(msg))
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
