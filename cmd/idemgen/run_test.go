package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/spec"
)

// spec paths relative to this package's directory.
var (
	exampleSpec  = filepath.Join("..", "..", "examples", "orders", "openapi.yaml")
	cleanSpec    = filepath.Join("..", "..", "testdata", "golden", "good-all-fields", "openapi.yaml")
	warningSpec  = filepath.Join("..", "..", "testdata", "golden", "IDEM006-retention-under-24h", "openapi.yaml")
	errorSpec    = filepath.Join("..", "..", "testdata", "golden", "IDEM001-fingerprint-pointer-missing", "openapi.yaml")
	threeSpec    = filepath.Join("..", "..", "testdata", "golden", "three-problems", "openapi.yaml")
	mutationSpec = filepath.Join("..", "..", "testdata", "golden", "IDEM016-mutation-without-idempotency", "openapi.yaml")
)

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
		// wantStderr must match the whole of stderr.
		wantStderr string
	}{
		{name: "clean spec", args: []string{"check", cleanSpec}, want: exitOK},
		{name: "warning under the default threshold", args: []string{"check", warningSpec}, want: exitOK},
		{name: "warning with --fail-on warning", args: []string{"check", "--fail-on", "warning", warningSpec}, want: exitFindings},
		{name: "error finding", args: []string{"check", errorSpec}, want: exitFindings},
		{name: "opt-in rule off", args: []string{"check", mutationSpec}, want: exitOK},
		{name: "opt-in rule on", args: []string{"check", "--require-mutations", mutationSpec}, want: exitFindings},
		{
			name: "missing file", args: []string{"check", "testdata/no-such-spec.yaml"}, want: exitUnusable,
			wantStderr: `^testdata/no-such-spec.yaml: .+\n$`,
		},
		{
			name: "usable and missing together", args: []string{"check", exampleSpec, "no-such.yaml"}, want: exitUnusable,
			wantStderr: `^no-such.yaml: .+\n$`,
		},
		{name: "explain missing file", args: []string{"explain", "no-such.yaml"}, want: exitUnusable, wantStderr: `^no-such.yaml: .+\n$`},
		{name: "explain example", args: []string{"explain", exampleSpec}, want: exitOK},
		{name: "no spec", args: []string{"check"}, want: exitUnusable, wantStderr: `^idemgen: requires at least 1 arg.*\nRun 'idemgen help' for usage.\n$`},
		{name: "unknown command", args: []string{"frobnicate"}, want: exitUnusable, wantStderr: `^idemgen: unknown command "frobnicate".*\n(.*\n)*Run 'idemgen help' for usage.\n$`},
		{name: "unknown flag", args: []string{"check", "--strict", exampleSpec}, want: exitUnusable, wantStderr: `^idemgen: unknown flag: --strict\n`},
		{name: "unknown format", args: []string{"check", "--format", "xml", exampleSpec}, want: exitUnusable, wantStderr: `^idemgen: unknown format "xml"`},
		{name: "unknown severity", args: []string{"check", "--fail-on", "fatal", exampleSpec}, want: exitUnusable, wantStderr: `^idemgen: unknown severity "fatal"`},
		{name: "explain takes one spec", args: []string{"explain", exampleSpec, exampleSpec}, want: exitUnusable},
		{name: "version", args: []string{"version"}, want: exitOK},
		{name: "help", args: []string{"help"}, want: exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runIdemgen(tt.args...)
			if code != tt.want {
				t.Errorf("run %q = %d, want %d; stderr:\n%s", tt.args, code, tt.want, stderr)
			}
			if tt.wantStderr != "" && !regexp.MustCompile(tt.wantStderr).MatchString(stderr) {
				t.Errorf("stderr %q does not match %q", stderr, tt.wantStderr)
			}
			if tt.wantStderr == "" && code != exitUnusable && stderr != "" {
				t.Errorf("unexpected stderr:\n%s", stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr shows a panic:\n%s", stderr)
			}
		})
	}
}

// panicWriter panics on every write, standing in for a bug below run.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom") }

func TestPanicIsInternalError(t *testing.T) {
	var stderr strings.Builder
	code := run([]string{"check", errorSpec}, panicWriter{}, &stderr)
	if code != exitInternal {
		t.Errorf("exit code = %d, want %d", code, exitInternal)
	}
	if want := "idemgen: internal error: boom\n"; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr = %q, want prefix %q", stderr.String(), want)
	}
}

func TestCheckJSONDecodes(t *testing.T) {
	stdout, _, code := runIdemgen("check", "--format", "json", threeSpec, cleanSpec)
	if code != exitFindings {
		t.Fatalf("exit code = %d, want %d", code, exitFindings)
	}
	var r spec.JSONReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("decode: %v\n%s", err, stdout)
	}
	var rules []string
	for _, d := range r.Diagnostics {
		rules = append(rules, d.Rule)
		if d.File != threeSpec || d.Line == 0 || d.Col == 0 || d.Message == "" {
			t.Errorf("incomplete diagnostic %+v", d)
		}
	}
	if got, want := strings.Join(rules, " "), "IDEM006 IDEM012 IDEM015"; got != want {
		t.Errorf("rules = %s, want %s", got, want)
	}
	if r.Version != 1 || r.Counts["error"] != 1 || r.Counts["warning"] != 2 {
		t.Errorf("version %d, counts %v", r.Version, r.Counts)
	}
}

func TestCheckGitHubAnnotations(t *testing.T) {
	stdout, _, code := runIdemgen("check", "--format", "github", threeSpec)
	if code != exitFindings {
		t.Fatalf("exit code = %d, want %d", code, exitFindings)
	}
	line := regexp.MustCompile(`^::(error|warning|notice) file=[^,:]+,line=[0-9]+,col=[0-9]+,title=IDEM[0-9]{3}::.+$`)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(lines), stdout)
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("malformed annotation %q", l)
		}
	}
}

// TestEveryRuleHasABadSpec checks the contract of testdata/golden: each
// rule, the spec's and the planner's, has a case named after it whose
// spec yields that rule and nothing else (but IDEM026 beside IDEM024's
// pointer into a union, which needs the union).
func TestEveryRuleHasABadSpec(t *testing.T) {
	type rule struct {
		id       string
		severity spec.Severity
		optIn    bool
	}
	var rules []rule
	for _, r := range spec.Rules() {
		rules = append(rules, rule{r.ID, r.Severity, r.OptIn})
	}
	for _, id := range plannerRules {
		rules = append(rules, rule{id, spec.SeverityError, false})
	}
	for _, rule := range rules {
		t.Run(rule.id, func(t *testing.T) {
			matches, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", rule.id+"-*", "openapi.yaml"))
			if err != nil || len(matches) == 0 {
				t.Fatalf("no testdata/golden/%s-*/openapi.yaml", rule.id)
			}
			for _, m := range matches {
				args := []string{"check", "--format", "json"}
				if rule.optIn {
					args = append(args, "--require-mutations")
				}
				stdout, stderr, _ := runIdemgen(append(args, m)...)
				var r spec.JSONReport
				if err := json.Unmarshal([]byte(stdout), &r); err != nil {
					t.Fatalf("%s: decode: %v\n%s", m, err, stderr)
				}
				if len(r.Diagnostics) == 0 {
					t.Errorf("%s: no findings", m)
				}
				for _, d := range r.Diagnostics {
					if rule.id == generator.RulePointerNotWalkable && d.Rule == "IDEM026" {
						continue // a pointer into a union needs a union
					}
					if d.Rule != rule.id || d.Severity != rule.severity.String() {
						t.Errorf("%s: finding %s %s, want only %s %s", m, d.Severity, d.Rule, rule.severity, rule.id)
					}
				}
			}
		})
	}
}

func TestVersionText(t *testing.T) {
	if got, want := versionText(nil, false), "idemgen "+generator.Version()+"\n"; got != want {
		t.Errorf("without build info: %q, want %q", got, want)
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/idemgen/idemgen", Version: "v0.1.0"}}
	want := "idemgen " + generator.Version() + "\nmodule github.com/idemgen/idemgen v0.1.0\ngo1.26.8\n"
	if got := versionText(info, true); got != want {
		t.Errorf("with build info: %q, want %q", got, want)
	}
	stdout, _, _ := runIdemgen("version")
	if !strings.HasPrefix(stdout, "idemgen "+generator.Version()+"\n") {
		t.Errorf("idemgen version printed %q", stdout)
	}
}
