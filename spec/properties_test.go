package spec

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// propertiesSpec declares properties out of alphabetical order, inline and
// by $ref; schemaFile names the file of the Order schema.
const propertiesSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      requestBody:
        content:
          application/json:
            schema: {$ref: '%s#/components/schemas/Order'}
      responses:
        "201": {description: created}
`

// orderSchema is the Order schema, properties written zeta, alpha, money,
// beta.
const orderSchema = `components:
  schemas:
    Order:
      type: object
      properties:
        zeta: {type: string}
        alpha: {$ref: '#/components/schemas/Money'}
        money:
          $ref: '#/components/schemas/Money'
        beta:
          type: object
          properties:
            y: {type: integer}
            x: {type: integer}
    Money: {type: integer}
`

// PropertyOrder gives the properties in the order the document writes
// them, inline and $ref'd alike, whether the loader decoded the document
// itself or kin-openapi's loader read an external file.
func TestPropertyOrder(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "self.yaml")
	writeFile(t, self, fmt.Sprintf(propertiesSpec, "")+orderSchema)
	writeFile(t, filepath.Join(dir, "schemas.yaml"), orderSchema)
	external := filepath.Join(dir, "external.yaml")
	writeFile(t, external, fmt.Sprintf(propertiesSpec, "schemas.yaml"))
	for _, path := range []string{self, external} {
		doc := loadT(t, path)
		order := doc.OpenAPI.Paths.Value("/orders").Post.RequestBody.Value.Content["application/json"].Schema.Value
		if got, want := PropertyOrder(order), []string{"zeta", "alpha", "money", "beta"}; !slices.Equal(got, want) {
			t.Errorf("%s: Order's properties %q, want %q", filepath.Base(path), got, want)
		}
		if got, want := PropertyOrder(order.Properties["beta"].Value), []string{"y", "x"}; !slices.Equal(got, want) {
			t.Errorf("%s: beta's properties %q, want %q", filepath.Base(path), got, want)
		}
	}
}
