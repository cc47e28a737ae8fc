package generator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// plannerRuleIDs returns the ids of the planner's rules, read from the
// constants of verdict.go, so that a rule added there cannot escape the
// documentation.
func plannerRuleIDs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "verdict.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	id := regexp.MustCompile(`^IDEM[0-9]{3}$`)
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Rule") {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && id.MatchString(v) {
				ids[v] = vs.Names[0].Name
			}
		}
		return true
	})
	if len(ids) < 7 {
		t.Fatalf("found %d planner rules in verdict.go, want at least 7", len(ids))
	}
	return ids
}

// TestPlannerRulesDocumented keeps docs/rules.md in step with the
// planner's rules: each has one section that says it is an error judged
// by the planner, with a bad and a fixed snippet, one table row, and a
// golden case; and no id is both the planner's and a rule of the spec.
func TestPlannerRulesDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	nextHeading := regexp.MustCompile(`\n#{1,2} [A-Z]`)
	specRules := map[string]bool{}
	for _, r := range spec.Rules() {
		specRules[r.ID] = true
	}
	for id, name := range plannerRuleIDs(t) {
		if specRules[id] {
			t.Errorf("%s (%s) is a rule of the spec too: a refusal has one rule", id, name)
		}
		if n := strings.Count(doc, "\n## "+id+" "); n != 1 {
			t.Errorf("docs/rules.md has %d sections for %s (%s), want one", n, id, name)
			continue
		}
		section := doc[strings.Index(doc, "\n## "+id+" ")+1:]
		if loc := nextHeading.FindStringIndex(section); loc != nil {
			section = section[:loc[0]]
		}
		if !strings.Contains(section, "**Severity:** error. **Judged by:** the generator's planner.") {
			t.Errorf("docs/rules.md section %s does not say it is an error judged by the planner", id)
		}
		if !strings.Contains(section, "```yaml") || !strings.Contains(section, "# bad") || !strings.Contains(section, "# fixed") {
			t.Errorf("docs/rules.md section %s lacks a bad and a fixed snippet", id)
		}
		if n := strings.Count(doc, "\n| ["+id+"](#"+strings.ToLower(id)+"-"); n != 1 {
			t.Errorf("docs/rules.md has %d table rows for %s, want one", n, id)
		}
		if cases, _ := filepath.Glob(filepath.Join(repoRoot(t), "testdata", "golden", id+"-*", "openapi.yaml")); len(cases) == 0 {
			t.Errorf("no golden case testdata/golden/%s-*/ refuses with %s", id, name)
		}
	}
}
