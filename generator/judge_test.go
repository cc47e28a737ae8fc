package generator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// TestGenerateEmitsTheJudgedPlan checks that generate plans once: Generate
// takes the judgement's plan, not the document, and emits exactly that
// plan. A mark put into the judged plan's program after judging shows up
// in the files, which a second planning inside Generate would have lost;
// and Generate sets its options on a copy, so one plan emits into two
// packages and stays as judged.
func TestGenerateEmitsTheJudgedPlan(t *testing.T) {
	doc, err := spec.Load(t.Context(), filepath.Join(repoRoot(t), "testdata", "golden", "good-minimal", "openapi.yaml"), spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j := Judge(doc, spec.CheckOptions{})
	if j.Plan == nil {
		t.Fatalf("good-minimal refused: %v", j.Errors())
	}
	const mark = "the judged plan's operation"
	j.Plan.Program.Operations[0].Doc = mark
	for _, pkg := range []string{"first", "second"} {
		out, err := Generate(j.Plan, Options{Package: pkg, GoDir: pkg, Tests: true})
		if err != nil {
			t.Fatal(err)
		}
		marked := false
		for _, f := range out.Files {
			if strings.HasSuffix(f.Path, ".go") && !strings.Contains(string(f.Content), "\npackage "+pkg+"\n") {
				t.Errorf("%s is not in package %s", f.Path, pkg)
			}
			marked = marked || strings.Contains(string(f.Content), mark)
		}
		if !marked {
			t.Errorf("package %s: no file names %q: Generate did not emit the plan it was given", pkg, mark)
		}
	}
	if p := j.Plan.Program; p.Package != "" || p.GeneratorVersion != "" || p.Files != nil {
		t.Errorf("Generate changed the judged plan: package %q, version %q, files %v", p.Package, p.GeneratorVersion, p.Files)
	}
}

// TestJudgeKeepsEveryFinding checks that the judgement holds what check
// prints: the spec's findings at every severity beside the planner's
// refusals, sorted, and that a warning alone leaves the plan.
func TestJudgeKeepsEveryFinding(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []string
		plan  bool
	}{
		{"IDEM006-retention-under-24h", []string{"IDEM006"}, true},
		{"IDEM013-phased-without-lease", []string{"IDEM013"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := spec.Load(t.Context(), filepath.Join(repoRoot(t), "testdata", "golden", tc.name, "openapi.yaml"), spec.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			j := Judge(doc, spec.CheckOptions{})
			var got []string
			for _, d := range j.Diagnostics {
				got = append(got, d.Rule)
			}
			if strings.Join(got, " ") != strings.Join(tc.rules, " ") || (j.Plan != nil) != tc.plan {
				t.Errorf("rules %v, plan %v; want %v and plan %v", got, j.Plan != nil, tc.rules, tc.plan)
			}
		})
	}
}
