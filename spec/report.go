package spec

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is an output format of idemgen check.
type Format string

// The output formats.
const (
	// FormatText prints file:line:col: severity IDEMnnn: message (hint).
	FormatText Format = "text"
	// FormatJSON prints one JSON object (see JSONReport) for bots.
	FormatJSON Format = "json"
	// FormatGitHub prints GitHub Actions workflow annotation lines.
	FormatGitHub Format = "github"
)

// Formats lists the output formats in the order help text shows them.
var Formats = []Format{FormatText, FormatJSON, FormatGitHub}

// ParseFormat returns the format with the name.
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want text, json or github)", name)
}

// ParseSeverity returns the severity with the lower-case name, as --fail-on
// takes it.
func ParseSeverity(name string) (Severity, error) {
	for _, s := range []Severity{SeverityInfo, SeverityWarning, SeverityError} {
		if s.String() == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning or info)", name)
}

// WriteReport writes diagnostics, already sorted, in the format.
func WriteReport(w io.Writer, f Format, diags []Diagnostic) error {
	switch f {
	case FormatText:
		return writeText(w, diags)
	case FormatJSON:
		return writeJSON(w, diags)
	case FormatGitHub:
		return writeGitHub(w, diags)
	}
	return fmt.Errorf("unknown format %q", f)
}

// writeText writes one line per diagnostic:
//
//	orders.yaml:42:7: error IDEM001: message (hint)
func writeText(w io.Writer, diags []Diagnostic) error {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "%s: %s %s: %s", d.Pos, d.Severity, d.Rule, d.Message)
		if d.Hint != "" {
			fmt.Fprintf(&b, " (%s)", d.Hint)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSONReport is the document --format json prints. Its field names are
// stable: bots may rely on them. New fields may be added.
type JSONReport struct {
	// Version is the report format version, 1.
	Version     int              `json:"version"`
	Diagnostics []JSONDiagnostic `json:"diagnostics"`
	// Counts holds the number of diagnostics per severity name.
	Counts map[string]int `json:"counts"`
}

// JSONDiagnostic is one diagnostic in a JSONReport.
type JSONDiagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Path     string `json:"path,omitempty"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
}

// JSON returns d as it is written in a JSONReport.
func (d Diagnostic) JSON() JSONDiagnostic {
	return JSONDiagnostic{
		File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
		Severity: d.Severity.String(), Rule: d.Rule, Path: d.Path,
		Message: d.Message, Hint: d.Hint,
	}
}

// jsonReportVersion is the JSONReport.Version this package writes.
const jsonReportVersion = 1

// writeJSON writes the diagnostics as one indented JSONReport.
func writeJSON(w io.Writer, diags []Diagnostic) error {
	r := JSONReport{
		Version:     jsonReportVersion,
		Diagnostics: make([]JSONDiagnostic, len(diags)),
		Counts:      map[string]int{"error": 0, "warning": 0, "info": 0},
	}
	for i, d := range diags {
		r.Diagnostics[i] = d.JSON()
		r.Counts[d.Severity.String()]++
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// writeGitHub writes one workflow command per diagnostic, which GitHub
// Actions shows as an annotation on the line:
//
//	::error file=orders.yaml,line=42,col=7,title=IDEM001::message (hint)
func writeGitHub(w io.Writer, diags []Diagnostic) error {
	var b strings.Builder
	for _, d := range diags {
		command := githubCommands[d.Severity]
		props := []string{}
		if d.Pos.File != "" {
			props = append(props, "file="+escapeProperty(d.Pos.File))
		}
		if d.Pos.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", d.Pos.Line))
		}
		if d.Pos.Col > 0 {
			props = append(props, fmt.Sprintf("col=%d", d.Pos.Col))
		}
		props = append(props, "title="+escapeProperty(d.Rule))
		msg := d.Message
		if d.Hint != "" {
			msg += " (" + d.Hint + ")"
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", command, strings.Join(props, ","), escapeData(msg))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// githubCommands maps a severity to the workflow command that annotates
// with it.
var githubCommands = map[Severity]string{SeverityError: "error", SeverityWarning: "warning", SeverityInfo: "notice"}

// escapeData escapes a workflow command's message as the Actions runner
// expects.
func escapeData(s string) string {
	return dataEscaper.Replace(s)
}

// dataEscaper and propertyEscaper are the escapes of escapeData and
// escapeProperty.
var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// escapeProperty escapes a workflow command property value, which must
// also not contain : or ,.
func escapeProperty(s string) string {
	return propertyEscaper.Replace(s)
}
