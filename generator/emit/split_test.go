package emit_test

import (
	"bytes"
	"go/format"
	"path/filepath"
	"testing"

	"github.com/idemgen/idemgen/generator"
	"github.com/idemgen/idemgen/generator/emit"
	"github.com/idemgen/idemgen/spec"
)

// TestTypesFileInParts renders the types of every golden case's spec in
// one part and in two to five, and checks that the joined parts are the
// bytes of the single render and gofmt-clean.
func TestTypesFileInParts(t *testing.T) {
	specs, err := filepath.Glob("../../testdata/golden/*/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	split := 0
	for _, path := range specs {
		doc, err := spec.Load(t.Context(), path, spec.LoadOptions{})
		if err != nil {
			continue // the cases of load errors
		}
		plan, err := generator.PlanTypes(doc, doc.Operations, generator.TypeOptions{})
		if err != nil {
			continue // the cases of planner errors
		}
		whole, err := emit.TypesFile("x", plan.Decls, plan.Patterns, 1)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		formatted, err := format.Source(whole)
		if err != nil || !bytes.Equal(formatted, whole) {
			t.Errorf("%s: the single render is not gofmt-clean (%v)", path, err)
		}
		if len(plan.Decls) >= 4 {
			split++
		}
		for parts := 2; parts <= 5; parts++ {
			got, err := emit.TypesFile("x", plan.Decls, plan.Patterns, parts)
			if err != nil {
				t.Fatalf("%s in %d parts: %v", path, parts, err)
			}
			if !bytes.Equal(got, whole) {
				t.Errorf("%s in %d parts differs from one render:\n%s\nwant:\n%s", path, parts, got, whole)
			}
		}
	}
	if split < 5 {
		t.Fatalf("only %d specs with 4 or more declarations to split; the test needs some", split)
	}
}
