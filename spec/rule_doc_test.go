package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// TestRulesDocumentedOnce checks that docs/rules.md lists each rule once:
// one heading and one table row per id, whichever stage judges it.
func TestRulesDocumentedOnce(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	headings, rows := map[string]int{}, map[string]int{}
	heading := regexp.MustCompile(`^## ([A-Z]+[0-9]{3}) `)
	row := regexp.MustCompile(`^\| \[([A-Z]+[0-9]{3})[\]–]`)
	for _, line := range strings.Split(string(data), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			headings[m[1]]++
		}
		if m := row.FindStringSubmatch(line); m != nil {
			rows[m[1]]++
		}
	}
	if len(headings) < len(Rules()) {
		t.Fatalf("docs/rules.md has %d rule headings, fewer than the %d rules", len(headings), len(Rules()))
	}
	for id, n := range headings {
		if n != 1 {
			t.Errorf("docs/rules.md has %d sections for %s, want one", n, id)
		}
		if strings.HasPrefix(id, "IDEM") && rows[id] != 1 {
			t.Errorf("docs/rules.md has %d table rows for %s, want one", rows[id], id)
		}
	}
	for id := range rows {
		if headings[id] == 0 {
			t.Errorf("docs/rules.md lists %s in its table but has no section for it", id)
		}
	}
}
