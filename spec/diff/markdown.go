package diff

import (
	"fmt"
	"io"
	"strings"

	"github.com/idemgen/idemgen/spec"
)

// MarkdownMarker is the first line of the Markdown report, an HTML comment
// a CI job can look for to update its earlier pull-request comment instead
// of adding another.
const MarkdownMarker = "<!-- idemgen diff -->"

// writeMarkdown writes a pull-request comment: a summary line, then one
// table per level that has findings, most severe first.
func writeMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	b.WriteString(MarkdownMarker + "\n")
	if r.Unusable() {
		b.WriteString("### Idempotency contracts: not compared\n\n")
		fmt.Fprintf(&b, "`idemgen diff %s %s` could not use a side:\n\n", r.Base, r.Head)
		writeMarkdownProblems(&b, r.Problems)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "### Idempotency contracts: %s\n\n", summary(r.Findings))
	if len(r.Problems) > 0 {
		writeMarkdownProblems(&b, r.Problems)
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "`idemgen diff %s %s`", r.Base, r.Head)
	if len(r.Findings) == 0 {
		b.WriteString(": no change to any `x-idempotency` contract.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString(". Each change says what happens to a retry already in flight when the new contract is deployed; the rules are in [docs/diff.md](https://github.com/idemgen/idemgen/blob/main/docs/diff.md).\n")
	for _, level := range Levels {
		var fs []Finding
		for _, f := range r.Findings {
			if f.Level == level {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s (%d)\n\n", levelTitles[level], len(fs))
		b.WriteString("| operation | change | retries in flight | rule | base | head |\n")
		b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
		for _, f := range fs {
			op := f.Operation.String()
			if f.Operation.ID != "" {
				op += " (" + f.Operation.ID + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | `%s` | %s | %s |\n",
				cell(op), cell(f.Change), cell(f.InFlight), f.Rule, positionCell(f.Base), positionCell(f.Head))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMarkdownProblems lists the problems of the sides, one a line.
func writeMarkdownProblems(b *strings.Builder, problems []Problem) {
	for _, p := range problems {
		fmt.Fprintf(b, "- **%s** %s `%s` at %s: %s\n", p.Severity, p.Side, p.Rule, positionCell(p.Pos), cell(p.Message))
	}
}

// levelTitles heads each level's table.
var levelTitles = map[Level]string{Breaking: "Breaking", Risky: "Risky", Safe: "Safe"}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return cellEscaper.Replace(s)
}

// cellEscaper escapes what would end a cell or a row.
var cellEscaper = strings.NewReplacer("|", `\|`, "\n", " ", "\r", "")

// positionCell formats a position as code, or a dash when absent.
func positionCell(p spec.Position) string {
	if p.File == "" {
		return "—"
	}
	return "`" + cell(p.String()) + "`"
}
