package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// sandboxSpec is a spec with one contract whose request body schema is
// schema, written on line 23 from column 21; the value of a $ref written
// as {$ref: '…'} starts at column 28.
func sandboxSpec(schema string) string {
	return `openapi: 3.0.3
info: {title: sandbox, version: "1"}
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
  parameters:
    IdempotencyKey: {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
security:
  - bearer: []
x-idempotency-defaults:
  scope: [tenant]
  retention: 72h
paths:
  /orders:
    post:
      operationId: createOrder
      parameters:
        - $ref: '#/components/parameters/IdempotencyKey'
      requestBody:
        required: true
        content:
          application/json:
            schema: ` + schema + `
      responses:
        "201": {description: created}
      x-idempotency: {}
`
}

// writeSandboxFile writes content to name under dir and returns its path.
func writeSandboxFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRemoteRefsFlag: check, explain and generate refuse a $ref to a URL
// at its position, with no request made; with --allow-remote-refs they
// refuse it still, the server being on loopback, and fetch it when
// --allow-remote-ref-host names the host.
func TestRemoteRefsFlag(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write([]byte("Order: {type: object, properties: {id: {type: string}}}\n"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	p := writeSandboxFile(t, dir, "openapi.yaml", sandboxSpec("{$ref: '"+srv.URL+"/schemas.yaml#/Order'}"))
	out := filepath.Join(dir, "out")
	commands := map[string][]string{
		"check":    {"check", p},
		"explain":  {"explain", p},
		"generate": {"generate", "--spec", p, "--out", out, "--package", "shop"},
	}
	for name, args := range commands {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := runIdemgen(args...)
			if code != exitUnusable || !strings.Contains(stderr, p+":23:28: $ref:") || !strings.Contains(stderr, "--allow-remote-refs") {
				t.Errorf("without the flag: exit %d, want %d with the error at the $ref\n%s", code, exitUnusable, stderr)
			}
			if n := requests.Load(); n != 0 {
				t.Fatalf("%d requests without the flag, want none", n)
			}
			// The server is on loopback: a host of the machine's, which
			// --allow-remote-refs alone does not reach.
			_, stderr, code = runIdemgen(append(args, "--allow-remote-refs")...)
			if code != exitUnusable || !strings.Contains(stderr, p+":23:28: $ref:") || !strings.Contains(stderr, "127.0.0.1 is a loopback address") || !strings.Contains(stderr, "--allow-remote-ref-host 127.0.0.1") {
				t.Errorf("with --allow-remote-refs: exit %d, want %d with the address refused at the $ref\n%s", code, exitUnusable, stderr)
			}
			if n := requests.Load(); n != 0 {
				t.Fatalf("%d requests to a loopback address, want none", n)
			}
			_, stderr, code = runIdemgen(append(args, "--allow-remote-refs", "--allow-remote-ref-host", "127.0.0.1")...)
			if code != exitOK {
				t.Errorf("with --allow-remote-ref-host 127.0.0.1: exit %d\n%s", code, stderr)
			}
			if n := requests.Swap(0); n != 1 {
				t.Errorf("%d requests with the host named, want 1", n)
			}
		})
	}
}

// TestRemoteRefHostNeedsRemoteRefs: naming a host without allowing remote
// references is a usage error, not a silent no-op.
func TestRemoteRefHostNeedsRemoteRefs(t *testing.T) {
	p := writeSandboxFile(t, t.TempDir(), "openapi.yaml", sandboxSpec("{type: object}"))
	_, stderr, code := runIdemgen("check", p, "--allow-remote-ref-host", "127.0.0.1")
	if code != exitUnusable || !strings.Contains(stderr, "it needs --allow-remote-refs") {
		t.Errorf("exit %d, want %d\n%s", code, exitUnusable, stderr)
	}
}

// TestRefRootFlag: a $ref above the spec's directory is refused, and read
// when --ref-root names a directory that holds it.
func TestRefRootFlag(t *testing.T) {
	dir := t.TempDir()
	writeSandboxFile(t, dir, "shared/schemas.yaml", "Order: {type: object, properties: {id: {type: string}}}\n")
	p := writeSandboxFile(t, dir, "api/openapi.yaml", sandboxSpec("{$ref: '../shared/schemas.yaml#/Order'}"))
	_, stderr, code := runIdemgen("check", p)
	if code != exitUnusable || !strings.Contains(stderr, p+":23:28: $ref:") || !strings.Contains(stderr, "--ref-root") {
		t.Errorf("without --ref-root: exit %d, want %d with the error at the $ref\n%s", code, exitUnusable, stderr)
	}
	if _, stderr, code := runIdemgen("check", p, "--ref-root", dir); code != exitOK {
		t.Errorf("with --ref-root: exit %d\n%s", code, stderr)
	}
}

// nestedSchema nests inline object schemas depth levels deep.
func nestedSchema(depth int) string {
	s := "{type: string}"
	for range depth {
		s = "{type: object, properties: {a: " + s + "}}"
	}
	return s
}

// TestGenerateDepthBound is the reproduction of the 3,000-deep schema
// that made generate run 11 s at 650 MB and write a 57 KB line: it is
// refused at its position, and the deepest schema the limit lets through
// generates code of bounded line length and a size proportional to the
// spec.
func TestGenerateDepthBound(t *testing.T) {
	dir := t.TempDir()
	deep := writeSandboxFile(t, dir, "deep.yaml", sandboxSpec(nestedSchema(3000)))
	_, stderr, code := runIdemgen("generate", "--spec", deep, "--out", filepath.Join(dir, "deep"), "--package", "shop")
	if code != exitUnusable || !strings.Contains(stderr, deep+":23:") || !strings.Contains(stderr, "nested deeper than 128 levels") {
		t.Fatalf("the 3,000-deep schema: exit %d, want %d with a positioned error\n%s", code, exitUnusable, stderr)
	}

	// The schema is at level 8 and each inline schema takes two levels:
	// 60 is the deepest that fits in 128.
	limit := sandboxSpec(nestedSchema(60))
	p := writeSandboxFile(t, dir, "limit.yaml", limit)
	out := filepath.Join(dir, "limit")
	if _, stderr, code := runIdemgen("generate", "--spec", p, "--out", out, "--package", "shop"); code != exitOK {
		t.Fatalf("60 levels of schemas: exit %d\n%s", code, stderr)
	}
	files, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	total, longest := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(out, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		total += len(data)
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			longest = max(longest, len(sc.Text()))
		}
	}
	if longest > 2048 || total > 50*len(limit) {
		t.Errorf("generated %d bytes from a %d-byte spec, the longest line %d bytes: want at most 2048 and 50 times the spec", total, len(limit), longest)
	}
	if _, _, code := runIdemgen("generate", "--spec", writeSandboxFile(t, dir, "over.yaml", sandboxSpec(nestedSchema(61))), "--out", out, "--package", "shop"); code != exitUnusable {
		t.Errorf("61 levels of schemas: exit %d, want %d", code, exitUnusable)
	}
}
