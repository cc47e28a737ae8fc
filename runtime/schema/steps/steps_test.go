package steps

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// Every embedded file is a listed step's, and the steps are numbered 1 to
// Version without a gap.
func TestStepsAreNumberedAndListed(t *testing.T) {
	embedded, err := fs.Glob(files, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for i, s := range All() {
		if s.Number != i+1 {
			t.Errorf("step %d is numbered %d", i+1, s.Number)
		}
		if s.Title == "" || strings.TrimSpace(s.Up) == "" || strings.TrimSpace(s.Down) == "" {
			t.Errorf("step %d: a step has a title, an up and a down", s.Number)
		}
		listed = append(listed, fmt.Sprintf("%03d_%s.down.sql", s.Number, s.Name), fmt.Sprintf("%03d_%s.up.sql", s.Number, s.Name))
	}
	slices.Sort(listed)
	if !slices.Equal(embedded, listed) {
		t.Errorf("embedded step files %q, listed steps' files %q", embedded, listed)
	}
	if n := len(All()); n != Version {
		t.Errorf("Version is %d, with %d steps", Version, n)
	}
}

// SQL is every step's Up in order, and All hands out a copy.
func TestSQLAndAll(t *testing.T) {
	var want strings.Builder
	for _, s := range All() {
		want.WriteString(s.Up)
	}
	if got := SQL(); got != want.String() {
		t.Errorf("SQL() is not the steps' Up in order")
	}
	a := All()
	a[0].Up = "changed"
	if All()[0].Up == "changed" {
		t.Error("All returned the package's own slice")
	}
}
