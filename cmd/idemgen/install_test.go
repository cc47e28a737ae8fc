//go:build long

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installSpec is the small annotated spec of TestInstallInFreshModule.
const installSpec = `openapi: 3.1.0
info: {title: Payments, version: 1.0.0}
paths:
  /payments:
    post:
      operationId: createPayment
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string, maxLength: 255}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [amount, currency]
              properties:
                amount: {type: integer}
                currency: {type: string}
      responses:
        '201':
          description: The payment was created.
          content:
            application/json:
              schema:
                type: object
                required: [id]
                properties:
                  id: {type: string}
      x-idempotency:
        key: {in: header, name: Idempotency-Key, required: true}
        scope: [tenant]
        retention: 24h
`

// installConfig is its idemgen.yaml, as the README's quick start writes
// one (without the contract tests, which need a fixture).
const installConfig = `specs: [openapi.yaml]
package: payments
out: payments
schema: idempotency
migrations: {format: goose, dir: migrations}
`

// installGenerate is the Go file holding the README's go:generate line.
const installGenerate = `// Package svc is a service set up the way idemgen's README says.
package svc

//go:generate go tool idemgen generate --config idemgen.yaml
`

// TestInstallInFreshModule follows the README's installation in a new
// module: go mod init, go get -tool github.com/idemgen/idemgen/cmd/idemgen,
// an annotated spec, an idemgen.yaml and a go:generate line running go
// tool idemgen, then go generate, go build and go vet. The module graph
// it ends with, the tool's dependencies included, is lean
// (requireLeanGraph).
//
// The idemgen module is not published, so the new module replaces it with
// this repository (a replace directive, the one step the README does not
// have), and go get resolves the tool's path there. Its dependencies come
// from the module proxy, so the test needs one (CI and the development
// machines have it); -short skips it.
func TestInstallInFreshModule(t *testing.T) {
	m := newFreshModule(t, "example.com/svc")
	m.run(t, "get", "-tool", "github.com/idemgen/idemgen/cmd/idemgen")
	for name, content := range map[string]string{
		"openapi.yaml": installSpec,
		"idemgen.yaml": installConfig,
		"generate.go":  installGenerate,
	} {
		m.write(t, name, content)
	}
	m.run(t, "generate", "./...")
	for _, file := range []string{"payments/openapi_operations.go", "payments/openapi_types.go", "migrations/00001_idemgen.sql"} {
		if _, err := os.Stat(filepath.Join(m.dir, filepath.FromSlash(file))); err != nil {
			t.Errorf("go generate did not write %s: %v", file, err)
		}
	}
	m.run(t, "build", "./...")
	m.run(t, "vet", "./...")
	if mod, err := os.ReadFile(filepath.Join(m.dir, "go.mod")); err != nil || !strings.Contains(string(mod), "tool github.com/idemgen/idemgen/cmd/idemgen") {
		t.Errorf("go.mod does not name the tool (%v):\n%s", err, mod)
	}
	requireLeanGraph(t, m)
}
