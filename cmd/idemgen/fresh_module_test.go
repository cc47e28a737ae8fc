package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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
