package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesDocumented keeps docs/rules.md in step with Rules(): each rule
// has a section headed by its id and name that states its severity.
func TestRulesDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, r := range Rules() {
		heading := fmt.Sprintf("\n## %s %s\n", r.ID, r.Name)
		i := strings.Index(doc, heading)
		if i < 0 {
			t.Errorf("docs/rules.md has no heading %q", strings.TrimSpace(heading))
			continue
		}
		section := doc[i+len(heading):]
		if j := strings.Index(section, "\n## "); j >= 0 {
			section = section[:j]
		}
		if !strings.Contains(section, "**Severity:** "+r.Severity.String()) {
			t.Errorf("docs/rules.md section %s does not say severity %s", r.ID, r.Severity)
		}
		if strings.Count(section, "```yaml") < 1 || !strings.Contains(section, "# bad") || !strings.Contains(section, "# fixed") {
			t.Errorf("docs/rules.md section %s lacks a bad and a fixed snippet", r.ID)
		}
		row := fmt.Sprintf("| [%s](#%s-%s) | %s", r.ID, strings.ToLower(r.ID), r.Name, r.Name)
		if !strings.Contains(doc, row) {
			t.Errorf("docs/rules.md table has no row for %s %s", r.ID, r.Name)
		}
	}
	for _, id := range retiredRules {
		if !strings.Contains(doc, "\n## "+id+" ") || !strings.Contains(doc, "| ["+id+"]") {
			t.Errorf("docs/rules.md has no section and row for the retired rule %s", id)
		}
	}
}
