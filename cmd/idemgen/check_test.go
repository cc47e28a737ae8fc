package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// TestCheckReportsUnusableInput checks that the json and github formats
// carry why a spec is unusable, with position and rule id, and keep exit
// code 2, while the text format still prints it on stderr.
func TestCheckReportsUnusableInput(t *testing.T) {
	malformed := func(name string) string {
		return filepath.Join("..", "..", "testdata", "golden", "malformed-"+name, "openapi.yaml")
	}
	tests := []struct {
		name, spec string
		// line and col are the position of the (first) reason; 0 when the
		// reason is about the file as a whole.
		line, col int
		message   string
	}{
		{"unknown field", malformed("unknown-field"), 10, 9, `unknown field "retension" (did you mean "retention"?)`},
		{"bad duration", malformed("bad-duration"), 10, 20, `invalid duration "3 days"`},
		{"invalid YAML", malformed("invalid-yaml"), 10, 16, "invalid YAML or JSON"},
		{"not OpenAPI", malformed("not-openapi"), 1, 1, "not an OpenAPI document"},
		{"missing file", "no-such-spec.yaml", 0, 0, "cannot read file: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/json", func(t *testing.T) {
			stdout, stderr, code := runIdemgen("check", "--format", "json", tt.spec, cleanSpec)
			if code != exitUnusable {
				t.Errorf("exit code = %d, want %d", code, exitUnusable)
			}
			if stderr != "" {
				t.Errorf("stderr = %q, want nothing: the report carries the reason", stderr)
			}
			var r spec.JSONReport
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("decode: %v\n%s", err, stdout)
			}
			if len(r.Diagnostics) == 0 {
				t.Fatalf("no diagnostics:\n%s", stdout)
			}
			d := r.Diagnostics[0]
			if d.File != tt.spec || d.Line != tt.line || d.Col != tt.col || d.Rule != spec.RuleUnusable || d.Severity != "error" || !strings.Contains(d.Message, tt.message) {
				t.Errorf("diagnostic %+v, want %s:%d:%d error %s %q", d, tt.spec, tt.line, tt.col, spec.RuleUnusable, tt.message)
			}
			if r.Counts["error"] != len(r.Diagnostics) {
				t.Errorf("counts %v for %d diagnostics", r.Counts, len(r.Diagnostics))
			}
		})
		t.Run(tt.name+"/github", func(t *testing.T) {
			stdout, stderr, code := runIdemgen("check", "--format", "github", tt.spec)
			if code != exitUnusable || stderr != "" {
				t.Errorf("exit code = %d, stderr %q; want %d and nothing", code, stderr, exitUnusable)
			}
			props := "file=" + tt.spec
			if tt.line > 0 {
				props += fmt.Sprintf(",line=%d,col=%d", tt.line, tt.col)
			}
			want := regexp.MustCompile(`^::error ` + regexp.QuoteMeta(props) + `,title=` + spec.RuleUnusable + `::.*` + regexp.QuoteMeta(tt.message))
			if !want.MatchString(stdout) {
				t.Errorf("annotation %q does not match %s", stdout, want)
			}
		})
		t.Run(tt.name+"/text", func(t *testing.T) {
			stdout, stderr, code := runIdemgen("check", tt.spec)
			if code != exitUnusable || stdout != "" || !strings.Contains(stderr, tt.message) {
				t.Errorf("exit code %d, stdout %q, stderr %q; want %d, nothing, and the reason", code, stdout, stderr, exitUnusable)
			}
		})
	}
}
