package diff

import (
	"fmt"
	"io"

	"github.com/idemgen/idemgen/spec"
)

// Report is the outcome of one comparison, as idemgen diff prints it.
type Report struct {
	// Base and Head name the two specs compared, as the user gave them.
	Base, Head string
	Findings   []Finding
	// Problems are the reasons a side could not be used (errors of rule
	// spec.RuleUnusable; there are then no findings) and the overlay
	// warnings of usable sides (spec.RuleOverlayWarning).
	Problems []Problem
}

// Problem is a diagnostic of one side of a diff.
type Problem struct {
	// Side is "base" or "head".
	Side string
	spec.Diagnostic
}

// Unusable reports whether a side of r could not be used, so that r has
// no findings.
func (r Report) Unusable() bool {
	for _, p := range r.Problems {
		if p.Severity == spec.SeverityError {
			return true
		}
	}
	return false
}

// Format is an output format of idemgen diff.
type Format string

// The output formats.
const (
	// FormatText prints one finding per paragraph for a terminal.
	FormatText Format = "text"
	// FormatMarkdown prints a pull-request comment: a summary line and a
	// table per level.
	FormatMarkdown Format = "markdown"
	// FormatJSON prints one JSON object for bots (docs/diff.schema.json).
	FormatJSON Format = "json"
	// FormatGitHub prints GitHub Actions workflow annotation lines.
	FormatGitHub Format = "github"
)

// Formats lists the output formats in the order help text shows them.
var Formats = []Format{FormatText, FormatMarkdown, FormatJSON, FormatGitHub}

// ParseFormat returns the format with the name.
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown, json or github)", name)
}

// Write writes the report in the format.
func Write(w io.Writer, f Format, r Report) error {
	switch f {
	case FormatText:
		return writeText(w, r)
	case FormatMarkdown:
		return writeMarkdown(w, r)
	case FormatJSON:
		return writeJSON(w, r)
	case FormatGitHub:
		return writeGitHub(w, r)
	}
	return fmt.Errorf("unknown format %q", f)
}

// summary words the counts: "2 breaking, 0 risky, 1 safe", or "no contract
// changes".
func summary(fs []Finding) string {
	if len(fs) == 0 {
		return "no contract changes"
	}
	n := Counts(fs)
	return fmt.Sprintf("%d breaking, %d risky, %d safe", n[Breaking], n[Risky], n[Safe])
}
