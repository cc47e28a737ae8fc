package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fields marked writeOnly or format: password are found in request
// and response bodies, effect payloads and step outputs, at any depth
// (items, allOf, additionalProperties, a recursive schema), and only in
// annotated operations.
func TestSecretFields(t *testing.T) {
	doc := loadT(t, writeSpec(t, "openapi.yaml", `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /accounts:
    post:
      operationId: createAccount
      x-idempotency:
        scope: []
        effects:
          - name: welcome
            payload: '#/components/schemas/Welcome'
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                email: {type: string}
                password: {type: string, writeOnly: true}
                devices:
                  type: array
                  items:
                    allOf:
                      - type: object
                        properties:
                          push_secret_handle: {type: string, format: password}
                labels:
                  type: object
                  additionalProperties:
                    type: object
                    properties:
                      recovery_phrase: {type: string, writeOnly: true}
                parent: {$ref: '#/components/schemas/Node'}
      responses:
        "201":
          description: created
          content:
            application/json:
              schema:
                type: object
                properties:
                  id: {type: string}
                  session: {type: string, format: password}
  /unannotated:
    post:
      operationId: unannotated
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                not_seen: {type: string, writeOnly: true}
      responses:
        "204": {description: done}
components:
  schemas:
    Welcome:
      type: object
      properties:
        address: {type: string}
        one_time_link: {type: string, writeOnly: true}
    Node:
      type: object
      properties:
        pin_hint: {type: string, writeOnly: true}
        child: {$ref: '#/components/schemas/Node'}
`))
	want := []string{"one_time_link", "password", "pin_hint", "push_secret_handle", "recovery_phrase", "session"}
	if diff := cmp.Diff(want, doc.SecretFields()); diff != "" {
		t.Errorf("SecretFields (-want +got):\n%s", diff)
	}
	if got := (*Document)(nil).SecretFields(); got != nil {
		t.Errorf("a nil document's SecretFields = %v", got)
	}
}
