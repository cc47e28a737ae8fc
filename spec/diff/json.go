package diff

import (
	"encoding/json"
	"io"

	"github.com/idemgen/idemgen/spec"
)

// JSONReport is the document --format json prints, described by
// docs/diff.schema.json. Its field names are stable: bots may rely on
// them. New fields may be added.
type JSONReport struct {
	// Version is the report format version, 1.
	Version  int           `json:"version"`
	Base     string        `json:"base"`
	Head     string        `json:"head"`
	Findings []JSONFinding `json:"findings"`
	// Counts holds the number of findings per level name.
	Counts map[string]int `json:"counts"`
	// Problems say why a side could not be used (then findings is
	// empty) and carry the overlay warnings; absent when there are none.
	Problems []JSONProblem `json:"problems,omitempty"`
}

// JSONProblem is one Problem in a JSONReport: the side, and the
// diagnostic as idemgen check --format json writes it.
type JSONProblem struct {
	Side string `json:"side"`
	spec.JSONDiagnostic
}

// JSONFinding is one finding in a JSONReport.
type JSONFinding struct {
	Rule        string        `json:"rule"`
	Level       string        `json:"level"`
	Operation   JSONOperation `json:"operation"`
	Field       string        `json:"field,omitempty"`
	Change      string        `json:"change"`
	InFlight    string        `json:"inFlight"`
	Base        *JSONPosition `json:"base"`
	Head        *JSONPosition `json:"head"`
	Fingerprint string        `json:"fingerprint"`
}

// JSONOperation names the operation of a JSONFinding.
type JSONOperation struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Webhook     bool   `json:"webhook,omitempty"`
	OperationID string `json:"operationId,omitempty"`
}

// JSONPosition is a place in one of the specs; null when that side does not
// have the value.
type JSONPosition struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// jsonReportVersion is the JSONReport.Version this package writes.
const jsonReportVersion = 1

// writeJSON writes the report as one indented JSONReport.
func writeJSON(w io.Writer, r Report) error {
	out := JSONReport{
		Version:  jsonReportVersion,
		Base:     r.Base,
		Head:     r.Head,
		Findings: make([]JSONFinding, len(r.Findings)),
		Counts:   map[string]int{},
	}
	for level, n := range Counts(r.Findings) {
		out.Counts[level.String()] = n
	}
	for i, f := range r.Findings {
		out.Findings[i] = JSONFinding{
			Rule:  f.Rule,
			Level: f.Level.String(),
			Operation: JSONOperation{
				Method: f.Operation.Method, Path: f.Operation.Path,
				Webhook: f.Operation.Webhook, OperationID: f.Operation.ID,
			},
			Field: f.Field, Change: f.Change, InFlight: f.InFlight,
			Base: jsonPosition(f.Base), Head: jsonPosition(f.Head),
			Fingerprint: f.Fingerprint,
		}
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, JSONProblem{Side: p.Side, JSONDiagnostic: p.JSON()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// jsonPosition returns p for JSON, nil when it is unknown.
func jsonPosition(p spec.Position) *JSONPosition {
	if p.File == "" {
		return nil
	}
	return &JSONPosition{File: p.File, Line: p.Line, Col: p.Col}
}
