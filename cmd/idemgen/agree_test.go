package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/spec"
)

// plannerRules are the ids of the generator's refusals.
var plannerRules = []string{generator.RuleWebhook, generator.RuleUnsupportedBody,
	generator.RulePointerNotWalkable, generator.RuleNameCollision, generator.RuleSchemaNotGo, generator.RuleRoute, generator.RulePattern}

// errorLine is an error of generate's report on stderr: position, rule.
var errorLine = regexp.MustCompile(`^(\S+:\d+:\d+): error ([A-Z]+\d{3}): `)

// notGeneratedLine is a reason explain gives for not generating:
// position, message, rule; or, without them, that the whole spec is
// refused.
var notGeneratedLine = regexp.MustCompile(`^> \*\*Not generated:\*\* (?:(\S+:\d+:\d+): .*\(([A-Z]+\d{3})\)$)?`)

// asWrittenLine starts the part of a section of explain that explains a
// phased contract as written, kept by no code.
const asWrittenLine = "What the phased contract asks for, as written"

// explainSection is what explain says of one operation.
type explainSection struct {
	// notGenerated: the section is marked not generated.
	notGenerated bool
	// kept: the section describes guarantees as kept, in an item outside
	// the as-written part.
	kept bool
	// asWritten: the section explains a phased contract as written.
	asWritten bool
}

// TestCommandsAgree runs check, explain and generate on the spec of every
// golden case, with its overlays, and requires one verdict: check reports
// an error exactly when generate refuses, with the same errors (position
// and rule), and explain then marks every annotated operation not
// generated and gives the same errors, while without one it marks none.
// A section marked not generated describes no guarantee as kept: what it
// explains of a phased contract comes below the line that says no code
// keeps it, which a generated section never has. Unusable input is exit 2
// for all three. Opt-in rules stay off (a case's check arguments are not
// passed): generate never runs them.
func TestCommandsAgree(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	refused, generated, asWritten := 0, 0, 0
	seen := map[string]bool{}
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			checkErrs, checkCode := checkVerdict(t, c)
			genErrs, genCode := generateVerdict(t, c)
			sections, explainErrs, explainCode := explainVerdict(t, c)
			if checkCode == exitUnusable || genCode == exitUnusable && len(genErrs) == 0 || explainCode == exitUnusable {
				if checkCode != exitUnusable || genCode != exitUnusable || len(genErrs) > 0 || explainCode != exitUnusable {
					t.Fatalf("unusable for some: check exit %d, generate exit %d with %d errors, explain exit %d", checkCode, genCode, len(genErrs), explainCode)
				}
				return
			}
			if want := map[bool]int{true: exitFindings, false: exitOK}[len(checkErrs) > 0]; checkCode != want {
				t.Errorf("check exit %d with %d errors, want %d", checkCode, len(checkErrs), want)
			}
			if want := map[bool]int{true: exitUnusable, false: exitOK}[len(checkErrs) > 0]; genCode != want || explainCode != exitOK {
				t.Errorf("check finds %d errors; generate exit %d (want %d), explain exit %d (want 0)", len(checkErrs), genCode, want, explainCode)
			}
			if !slices.Equal(genErrs, checkErrs) {
				t.Errorf("generate refuses with\n%s\ncheck reports\n%s", strings.Join(genErrs, "\n"), strings.Join(checkErrs, "\n"))
			}
			if !slices.Equal(explainErrs, checkErrs) {
				t.Errorf("explain gives the reasons\n%s\ncheck reports\n%s", strings.Join(explainErrs, "\n"), strings.Join(checkErrs, "\n"))
			}
			for title, s := range sections {
				if s.notGenerated != (len(checkErrs) > 0) {
					t.Errorf("explain marks %q not generated: %v; check finds %d errors", title, s.notGenerated, len(checkErrs))
				}
				if s.kept == s.notGenerated {
					t.Errorf("explain marks %q not generated: %v, and describes guarantees as kept: %v", title, s.notGenerated, s.kept)
				}
				if s.asWritten && !s.notGenerated {
					t.Errorf("explain gives %q as written and kept by no code, but it is generated", title)
				}
				if s.asWritten {
					asWritten++
				}
			}
			if len(checkErrs) > 0 {
				refused++
			} else {
				generated++
			}
			for _, e := range checkErrs {
				seen[strings.Fields(e)[1]] = true
			}
		})
	}
	if refused < 20 || generated < 10 || asWritten < 3 {
		t.Errorf("%d specs refused, %d generated, %d phased contracts explained as written: the golden cases should give more of each", refused, generated, asWritten)
	}
	for _, rule := range plannerRules {
		if !seen[rule] {
			t.Errorf("no golden spec is refused by the planner's %s", rule)
		}
	}
}

// checkVerdict runs check --format json on the case's spec and returns
// its errors as sorted "position rule" lines, and its exit code.
func checkVerdict(t *testing.T, c goldenCase) ([]string, int) {
	t.Helper()
	stdout, stderr, code := runIdemgen(slices.Concat([]string{"check", "--format", "json"}, c.overlayArgs(), []string{c.spec})...)
	var r spec.JSONReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("check: decode: %v\n%s%s", err, stdout, stderr)
	}
	var errs []string
	for _, d := range r.Diagnostics {
		if d.Severity == spec.SeverityError.String() {
			errs = append(errs, fmt.Sprintf("%s:%d:%d %s", d.File, d.Line, d.Col, d.Rule))
		}
	}
	return sortedSet(errs), code
}

// generateVerdict runs generate on the case's spec into a temporary
// directory and returns the errors it refuses with, as checkVerdict
// words them, and its exit code.
func generateVerdict(t *testing.T, c goldenCase) ([]string, int) {
	t.Helper()
	args := slices.Concat([]string{"generate"}, c.overlayArgs(), []string{"--spec", c.spec, "--out", t.TempDir(), "--package", "agree"})
	_, stderr, code := runIdemgen(args...)
	var errs []string
	for _, line := range strings.Split(stderr, "\n") {
		if m := errorLine.FindStringSubmatch(line); m != nil {
			errs = append(errs, m[1]+" "+m[2])
		}
	}
	return sortedSet(errs), code
}

// explainVerdict runs explain on the case's spec and returns what it
// says of each operation, by section title, every error the page gives as
// a reason, as checkVerdict words them, and the exit code.
func explainVerdict(t *testing.T, c goldenCase) (map[string]explainSection, []string, int) {
	t.Helper()
	stdout, _, code := runIdemgen(slices.Concat([]string{"explain"}, c.overlayArgs(), []string{c.spec})...)
	sections := map[string]explainSection{}
	var errs []string
	title, below := "", false
	for _, line := range strings.Split(stdout, "\n") {
		if t, ok := strings.CutPrefix(line, "### "); ok {
			title, below = t, false
			sections[title] = explainSection{}
			continue
		}
		if title == "" {
			if m := notGeneratedLine.FindStringSubmatch(line); m != nil && m[1] != "" {
				errs = append(errs, m[1]+" "+m[2])
			}
			continue
		}
		s := sections[title]
		switch m := notGeneratedLine.FindStringSubmatch(line); {
		case m != nil:
			s.notGenerated = true
			if m[1] != "" {
				errs = append(errs, m[1]+" "+m[2])
			}
		case strings.HasPrefix(line, asWrittenLine):
			s.asWritten, below = true, true
		case strings.HasPrefix(line, "- **") && !below:
			s.kept = true
		}
		sections[title] = s
	}
	return sections, sortedSet(errs), code
}

// sortedSet sorts lines and drops repeats: explain gives an error once
// for each operation it keeps from being generated.
func sortedSet(lines []string) []string {
	slices.Sort(lines)
	return slices.Compact(lines)
}
