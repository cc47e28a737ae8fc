package main

import (
	"os"
	"os/exec"
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

// freshModule is a new module in a temporary directory that resolves
// github.com/idemgen/idemgen to this repository, or this repository's own.
type freshModule struct {
	dir   string
	proxy string // GOPROXY; "" keeps the environment's
}

// newFreshModule runs go mod init path in a temporary directory and
// replaces the idemgen module with this repository there (the one step a
// real service does not have: the module is not published). Its other
// dependencies come from the module proxy, so it skips under -short and
// without a proxy (see notFoundFallback).
func newFreshModule(t *testing.T, path string) *freshModule {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a fresh module with dependencies from the module proxy")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	m := &freshModule{dir: t.TempDir(), proxy: notFoundFallback(t)}
	m.run(t, "mod", "init", path)
	m.run(t, "mod", "edit", "-replace", "github.com/idemgen/idemgen="+root)
	return m
}

// run runs the go command in the module, outside any workspace, and
// returns its output; it fails the test when the command fails.
func (m *freshModule) run(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = m.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	if m.proxy != "" {
		cmd.Env = append(cmd.Env, "GOPROXY="+m.proxy)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// write writes a file of the module.
func (m *freshModule) write(t *testing.T, name, content string) {
	t.Helper()
	file := filepath.Join(m.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// notFoundFallback returns the GOPROXY for the fresh module: the proxies
// of the environment's GOPROXY, then an empty directory proxy, each tried
// when the one before fails. go get asks the proxy whether the tool's
// path is a module of its own (github.com/idemgen/idemgen/cmd/idemgen); a
// proxy that answers an unpublished path with 403 rather than 404 stops
// it there, and the empty proxy turns that answer into "not found". The
// test skips when the environment has no proxy.
func notFoundFallback(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatalf("go env GOPROXY: %v", err)
	}
	var proxies []string
	for _, p := range strings.FieldsFunc(strings.TrimSpace(string(out)), func(r rune) bool { return r == ',' || r == '|' }) {
		if p != "direct" && p != "off" {
			proxies = append(proxies, p)
		}
	}
	if len(proxies) == 0 {
		t.Skipf("GOPROXY=%s names no module proxy", strings.TrimSpace(string(out)))
	}
	empty := filepath.ToSlash(t.TempDir())
	if !strings.HasPrefix(empty, "/") {
		empty = "/" + empty // file:///C:/... on Windows
	}
	return strings.Join(proxies, "|") + "|file://" + empty
}
