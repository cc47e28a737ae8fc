package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The spec of the temporary repository: openapi.yaml takes its request
// schema from schemas.yaml through a relative $ref.
const (
	revSpec = `openapi: 3.1.0
info: {title: Shop, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: 'schemas.yaml#/Order'}
      responses:
        '201': {description: Created.}
      x-idempotency:
        scope: [tenant]
        fingerprint:
          include: [/customer_id]
`
	revSchemas = `Order:
  type: object
  properties:
    customer_id: {type: string}
    items: {type: array, items: {type: string}}
`
)

// gitRepo creates a repository with api/openapi.yaml and api/schemas.yaml
// committed, then a second commit that adds /items to the fingerprint
// (breaking) and drops schemas.yaml, so that only a base read from the
// first commit, $ref included, can load.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	api := filepath.Join(repo, "api")
	if err := os.Mkdir(api, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(api, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=idemgen test", "-c", "user.email=test@idemgen.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	gitIn("init", "-q")
	write("openapi.yaml", revSpec)
	write("schemas.yaml", revSchemas)
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "orders")

	head := strings.Replace(revSpec, "{$ref: 'schemas.yaml#/Order'}", "{type: object, properties: {customer_id: {type: string}, items: {type: array}}}", 1)
	head = strings.Replace(head, "include: [/customer_id]", "include: [/customer_id, /items]", 1)
	write("openapi.yaml", head)
	if err := os.Remove(filepath.Join(api, "schemas.yaml")); err != nil {
		t.Fatal(err)
	}
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "items are significant")
	return repo
}

// runDiff runs idemgen diff with args.
func runDiff(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(append([]string{"diff"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

// TestDiffRevision reads the base from a git revision, with its relative
// $ref read from the same revision, and fails on the breaking change.
func TestDiffRevision(t *testing.T) {
	repo := gitRepo(t)
	t.Run("from the top", func(t *testing.T) {
		t.Chdir(repo)
		stdout, stderr, code := runDiff("--fail-on", "breaking", "HEAD~1:api/openapi.yaml", "api/openapi.yaml")
		if code != exitFindings {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, stdout, stderr)
		}
		for _, want := range []string{
			"api/openapi.yaml:17:35: breaking fingerprint-field-added: POST /orders (createOrder): fingerprint.include adds /items",
			"base: HEAD~1:api/openapi.yaml:17:21",
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("output lacks %q:\n%s", want, stdout)
			}
		}
		if stderr != "" {
			t.Errorf("stderr: %s", stderr)
		}
	})
	t.Run("relative to the current directory", func(t *testing.T) {
		t.Chdir(filepath.Join(repo, "api"))
		stdout, stderr, code := runDiff("--fail-on", "ERR", "--format", "github", "HEAD~1:./openapi.yaml", "openapi.yaml")
		if code != exitFindings {
			t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFindings, stdout, stderr)
		}
		if want := "::error file=openapi.yaml,line=17,col=35,title=fingerprint-field-added::"; !strings.HasPrefix(stdout, want) {
			t.Errorf("output does not start with %q:\n%s", want, stdout)
		}
	})
	t.Run("same revision on both sides", func(t *testing.T) {
		t.Chdir(repo)
		stdout, stderr, code := runDiff("--fail-on", "safe", "HEAD~1:api/openapi.yaml", "HEAD~1:api/openapi.yaml")
		if code != exitOK || !strings.Contains(stdout, "no contract changes") {
			t.Errorf("exit %d, want 0 and no changes\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
	t.Run("unknown revision", func(t *testing.T) {
		t.Chdir(repo)
		_, stderr, code := runDiff("HEAD~5:api/openapi.yaml", "api/openapi.yaml")
		if code != exitUnusable || !strings.Contains(stderr, "HEAD~5:api/openapi.yaml: ") {
			t.Errorf("exit %d, want %d with the side named; stderr:\n%s", code, exitUnusable, stderr)
		}
	})
	t.Run("file missing at the revision", func(t *testing.T) {
		t.Chdir(repo)
		_, stderr, code := runDiff("HEAD~1:api/missing.yaml", "api/openapi.yaml")
		if code != exitUnusable || !strings.Contains(stderr, "HEAD~1:api/missing.yaml: ") {
			t.Errorf("exit %d, want %d with the side named; stderr:\n%s", code, exitUnusable, stderr)
		}
	})
	t.Run("revision that is an option of git's", func(t *testing.T) {
		// The reproduction: git show took the revision as --output and
		// wrote the diff to a file the pull request's author named.
		t.Chdir(filepath.Join(repo, "api"))
		for _, arg := range []string{"--output=../pwned:openapi.yaml", "-o../pwned:openapi.yaml", "--end-of-options:openapi.yaml"} {
			_, stderr, code := runDiff("--", arg, "openapi.yaml")
			if code != exitUnusable || !strings.Contains(stderr, "starts with '-', which git would read as an option") {
				t.Errorf("%s: exit %d, want %d with the revision refused; stderr:\n%s", arg, code, exitUnusable, stderr)
			}
		}
		entries, err := os.ReadDir(repo)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "api" && e.Name() != ".git" {
				t.Errorf("the diff wrote %s into the repository", e.Name())
			}
		}
	})
	t.Run("outside a repository", func(t *testing.T) {
		t.Chdir(t.TempDir())
		_, stderr, code := runDiff("HEAD:openapi.yaml", "openapi.yaml")
		if code != exitUnusable || !strings.Contains(stderr, "not inside a git repository") {
			t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUnusable, stderr)
		}
	})
}

// TestDiffRevisionOfThisRepository compares the orders example at HEAD with
// the working file, from inside this repository: any changes may be
// reported, but both sides must load.
func TestDiffRevisionOfThisRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	top, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(top)
	if err := exec.Command("git", "cat-file", "-e", "HEAD:examples/orders/openapi.yaml").Run(); err != nil {
		t.Skip("not in a git checkout of idemgen with examples/orders/openapi.yaml committed")
	}
	stdout, stderr, code := runDiff("--fail-on", "breaking", "HEAD:examples/orders/openapi.yaml", "examples/orders/openapi.yaml")
	if code != exitOK && code != exitFindings {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestSideName checks how positions in a revision's files are shown.
func TestSideName(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rev")
	s := &side{arg: "HEAD~1:./openapi.yaml", rev: "HEAD~1", rel: "api/openapi.yaml", prefix: "api", dir: dir}
	s.file = filepath.Join(dir, "api", "openapi.yaml")
	for _, tc := range []struct {
		file       string
		annotation bool
		want       string
	}{
		{s.file, false, "HEAD~1:./openapi.yaml"},
		{s.file, true, "openapi.yaml"},
		{filepath.Join(dir, "api", "schemas.yaml"), false, "HEAD~1:api/schemas.yaml"},
		{filepath.Join(dir, "shared", "errors.yaml"), true, filepath.Join("..", "shared", "errors.yaml")},
		{"overlay.yaml", false, "overlay.yaml"},
		{"", true, ""},
	} {
		if got := s.name(tc.file, tc.annotation); got != tc.want {
			t.Errorf("name(%q, %v) = %q, want %q", tc.file, tc.annotation, got, tc.want)
		}
	}
	msg := s.file + ":3:1: bad\n" + filepath.Join(dir, "api", "schemas.yaml") + ":1:1: worse"
	if got, want := s.rewrite(msg), "HEAD~1:./openapi.yaml:3:1: bad\nHEAD~1:api/schemas.yaml:1:1: worse"; got != want {
		t.Errorf("rewrite = %q, want %q", got, want)
	}
}
