package spec

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// sharedBadSchema has an invalid schema used by two of three operations.
const sharedBadSchema = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Bad'}
      responses: {"200": {description: ok}}
  /b:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Bad'}
  /c:
    get:
      responses: {"200": {description: ok}}
components:
  schemas:
    Bad: {type: integer, multipleOf: -1}
`

// TestSharedSchemaDefectBlocksEveryUser checks that a schema validated once
// still blocks each operation that uses it.
func TestSharedSchemaDefectBlocksEveryUser(t *testing.T) {
	doc := loadT(t, writeSpec(t, "t.yaml", sharedBadSchema))
	blocked := map[string]string{}
	for _, op := range doc.Operations {
		for _, d := range op.Blocked {
			blocked[op.Method+" "+op.Path] = d.Rule + " " + d.Message
		}
	}
	for _, want := range []struct{ op, where string }{
		{"POST /a", "schema of the request body application/json"},
		{"GET /b", `schema of response 200 application/json`},
	} {
		got := blocked[want.op]
		if !strings.HasPrefix(got, "OAS003 ") || !strings.Contains(got, want.where) {
			t.Errorf("%s blocked by %q, want OAS003 naming %q", want.op, got, want.where)
		}
	}
	if got, ok := blocked["GET /c"]; ok {
		t.Errorf("GET /c blocked by %q, want nothing", got)
	}
}

// TestOpValidatorAgreesWithKinOpenAPI compares the once-per-schema
// validation with kin-openapi's own Operation.Validate on every operation
// of the corpus specs (Stripe aside: its plain validation takes seconds)
// and of the package fixtures: both must find the same operations invalid.
func TestOpValidatorAgreesWithKinOpenAPI(t *testing.T) {
	dir := corpusDir(t)
	files := []string{
		"testdata/dangling.yaml", "testdata/orders.yaml", "testdata/external/root.yaml",
		writeSpec(t, "bad-schema.yaml", sharedBadSchema),
	}
	for _, f := range corpusFiles {
		if !strings.HasPrefix(f.name, "stripe") {
			files = append(files, filepath.Join(dir, f.name))
		}
	}
	ctx := context.Background()
	invalid := 0
	for _, file := range files {
		doc := loadT(t, file)
		v := newOpValidator(doc.OpenAPI)
		opts := []openapi3.ValidationOption{openapi3.DisableExamplesValidation(), openapi3.DisableSchemaDefaultsValidation()}
		if doc.OpenAPI.IsOpenAPI31OrLater() {
			opts = append(opts, openapi3.IsOpenAPI31OrLater())
		}
		for _, op := range doc.Operations {
			ours, kins := v.validate(ctx, op.Op), op.Op.Validate(ctx, opts...)
			if kins != nil {
				invalid++
			}
			if (ours == nil) != (kins == nil) {
				t.Errorf("%s %s %s: ours %v, kin-openapi %v", file, op.Method, op.Path, ours, kins)
			}
		}
	}
	if invalid != 2 {
		t.Errorf("kin-openapi found %d invalid operations, want the 2 of sharedBadSchema; the comparison lost its negative cases", invalid)
	}
}
