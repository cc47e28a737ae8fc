package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRulesDocumented keeps docs/diff.md in step with Rules: each rule has
// a row in the table and a section headed by its id that states its level
// and shows a base and a head snippet.
func TestRulesDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "diff.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] {
			t.Errorf("rule %s is listed twice", r.ID)
		}
		seen[r.ID] = true
		heading := "\n## " + r.ID + "\n"
		i := strings.Index(doc, heading)
		if i < 0 {
			t.Errorf("docs/diff.md has no heading %q", strings.TrimSpace(heading))
			continue
		}
		section := doc[i+len(heading):]
		if j := strings.Index(section, "\n## "); j >= 0 {
			section = section[:j]
		}
		if !strings.Contains(section, "**Level:** "+r.Level.String()+".") {
			t.Errorf("docs/diff.md section %s does not say level %s", r.ID, r.Level)
		}
		if !strings.Contains(section, "```yaml\n# base\n") || !strings.Contains(section, "```yaml\n# head\n") {
			t.Errorf("docs/diff.md section %s lacks a base and a head snippet", r.ID)
		}
		if row := fmt.Sprintf("| [%s](#%s) | %s |", r.ID, r.ID, r.Level); !strings.Contains(doc, row) {
			t.Errorf("docs/diff.md table has no row %q", row)
		}
	}
}

// TestParseLevel accepts idemgen's level names and oasdiff's.
func TestParseLevel(t *testing.T) {
	for name, want := range map[string]Level{
		"breaking": Breaking, "risky": Risky, "safe": Safe,
		"ERR": Breaking, "WARN": Risky, "INFO": Safe, "err": Breaking, "Warn": Risky,
	} {
		got, err := ParseLevel(name)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseLevel("error"); err == nil {
		t.Error(`ParseLevel("error") succeeded`)
	}
}
