package generator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/idemgen/idemgen/generator/ir"
)

// The planner reads both forms of exclusive bounds (OpenAPI 3.0's boolean
// modifier and 3.1's number), const, and the keywords of arrays and maps
// into the IR, and gives each pattern it checks a variable.
func TestPlanChecks(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "openapi.yaml")
	src := `openapi: 3.1.0
info: {title: checks, version: "1"}
paths:
  /x:
    post:
      operationId: makeX
      parameters:
        - {name: limit, in: query, schema: {type: integer, maximum: 10}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                a: {type: number, exclusiveMinimum: 2, minimum: 1, exclusiveMaximum: 9}
                b: {type: string, const: fixed, pattern: '^f'}
                c: {type: array, minItems: 1, uniqueItems: true, items: {type: string, pattern: '^f'}}
                d: {type: object, maxProperties: 3, additionalProperties: {type: integer}}
      responses: {"201": {description: made}}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := loadTypesDoc(t, path)
	plan, err := PlanTypes(doc, doc.Operations, TypeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ot := plan.Operations[0]
	fields := map[string]*ir.Checks{}
	for _, f := range ot.Request.Type.Decl.Fields {
		fields[f.JSONName] = f.Type.Elem.Checks
		if f.Type.Kind != TypePointer {
			fields[f.JSONName] = f.Type.Checks
		}
	}
	one, three := 1, 3
	pattern := &ir.Pattern{Source: "^f", Var: "pattern0"}
	want := map[string]*ir.Checks{
		"a": {Minimum: &ir.Bound{Value: 2, Exclusive: true}, Maximum: &ir.Bound{Value: 9, Exclusive: true}},
		"b": {Pattern: pattern, Strings: []string{"fixed"}},
		"c": {MinItems: &one, UniqueItems: true},
		"d": {MaxProperties: &three},
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("checks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(ot.Request.Type.Decl.Fields[2].Type.Elem.Checks, &ir.Checks{Pattern: &ir.Pattern{Source: "^f", Var: "pattern1"}}); diff != "" {
		t.Errorf("item checks (-want +got):\n%s", diff)
	}
	if len(ot.Params) != 1 || ot.Params[0].Type.Checks.Maximum.Value != 10 || ot.Params[0].Required {
		t.Errorf("params %+v", ot.Params)
	}
	if len(plan.Patterns) != 2 {
		t.Errorf("patterns %v", plan.Patterns)
	}
	if !ot.Request.Type.Decl.JSON {
		t.Error("the body's struct does not decode from JSON")
	}
}
