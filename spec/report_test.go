package spec

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reportDiags are diagnostics with the characters the formats must escape.
var reportDiags = []Diagnostic{
	{
		Pos: Position{File: "specs/a,b.yaml", Line: 12, Col: 7}, Severity: SeverityError, Rule: "IDEM001",
		Path: "x-idempotency.fingerprint.include[0]", Message: "fingerprint.include /x is not there: 100% sure\nreally", Hint: "fix it",
	},
	{
		Pos: Position{File: "specs/a,b.yaml", Line: 20, Col: 3}, Severity: SeverityWarning, Rule: "IDEM006",
		Message: "retention 1h is short",
	},
	{
		Pos: Position{File: "specs/c.yaml"}, Severity: SeverityInfo, Rule: "OAS001", Message: "note",
	},
}

func TestWriteReportText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReport(&b, FormatText, reportDiags[:2]); err != nil {
		t.Fatal(err)
	}
	want := "specs/a,b.yaml:12:7: error IDEM001: fingerprint.include /x is not there: 100% sure\nreally (fix it)\n" +
		"specs/a,b.yaml:20:3: warning IDEM006: retention 1h is short\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

func TestWriteReportJSONDecodesBack(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReport(&b, FormatJSON, reportDiags); err != nil {
		t.Fatal(err)
	}
	var got JSONReport
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	want := JSONReport{
		Version: 1,
		Diagnostics: []JSONDiagnostic{
			{File: "specs/a,b.yaml", Line: 12, Col: 7, Severity: "error", Rule: "IDEM001", Path: "x-idempotency.fingerprint.include[0]",
				Message: "fingerprint.include /x is not there: 100% sure\nreally", Hint: "fix it"},
			{File: "specs/a,b.yaml", Line: 20, Col: 3, Severity: "warning", Rule: "IDEM006", Message: "retention 1h is short"},
			{File: "specs/c.yaml", Severity: "info", Rule: "OAS001", Message: "note"},
		},
		Counts: map[string]int{"error": 1, "warning": 1, "info": 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("json (-want +got):\n%s", diff)
	}
}

func TestWriteReportJSONEmptyIsAnArray(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReport(&b, FormatJSON, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"diagnostics": []`) {
		t.Errorf("empty report has no empty diagnostics array:\n%s", b.String())
	}
}

// githubLine is the shape of one workflow annotation command.
var githubLine = regexp.MustCompile(`^::(error|warning|notice) (file=[^,:]+)(,line=[0-9]+)?(,col=[0-9]+)?,title=(IDEM|OAS)[0-9]{3}::[^\r\n]*$`)

func TestWriteReportGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReport(&b, FormatGitHub, reportDiags); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"::error file=specs/a%2Cb.yaml,line=12,col=7,title=IDEM001::fingerprint.include /x is not there: 100%25 sure%0Areally (fix it)",
		"::warning file=specs/a%2Cb.yaml,line=20,col=3,title=IDEM006::retention 1h is short",
		"::notice file=specs/c.yaml,title=OAS001::note",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("github (-want +got):\n%s", diff)
	}
	for _, l := range lines {
		if !githubLine.MatchString(l) {
			t.Errorf("malformed annotation line %q", l)
		}
	}
}

func TestParseFormatAndSeverity(t *testing.T) {
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) succeeded")
	}
	for _, s := range []Severity{SeverityInfo, SeverityWarning, SeverityError} {
		if got, err := ParseSeverity(s.String()); err != nil || got != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity(fatal) succeeded")
	}
}
