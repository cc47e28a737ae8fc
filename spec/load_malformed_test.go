package spec

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadMalformed loads the specs of the malformed cases under
// testdata/golden and a missing file: each must fail with one line that
// has a position.
func TestLoadMalformed(t *testing.T) {
	dir := filepath.Join("..", "testdata", "golden")
	p := func(name string) string { return filepath.Join(dir, strings.TrimSuffix(name, ".yaml"), "openapi.yaml") }
	tests := []struct {
		file string
		want string
	}{
		{"malformed-invalid-yaml.yaml",
			p("malformed-invalid-yaml.yaml") + ":10:16: invalid YAML or JSON: did not find expected ',' or ']' (while parsing a flow sequence at 9:16)"},
		{"malformed-non-object-x-idempotency.yaml",
			p("malformed-non-object-x-idempotency.yaml") + `:9:22: x-idempotency: want an object, got the string "Idempotency-Key" (write {} to take every default)`},
		{"malformed-bad-duration.yaml",
			p("malformed-bad-duration.yaml") + `:10:20: x-idempotency.retention: invalid duration "3 days": want a duration such as 90m, 72h, 30d or 1d12h`},
		{"malformed-unknown-field.yaml",
			p("malformed-unknown-field.yaml") + `:10:9: x-idempotency: unknown field "retension" (did you mean "retention"?)`},
		{"malformed-not-openapi.yaml",
			p("malformed-not-openapi.yaml") + ":1:1: not an OpenAPI document: no openapi field"},
		{"missing.yaml",
			p("missing.yaml") + ": cannot read file: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := Load(context.Background(), p(tt.file), LoadOptions{})
			if err == nil {
				t.Fatalf("Load succeeded with %d operations, want an error", len(doc.Operations))
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got: %s\nwant: %s", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Pos.File != p(tt.file) {
				t.Errorf("error %T does not carry the file position: %+v", err, e)
			}
		})
	}
}

func TestLoadEmptyFiles(t *testing.T) {
	tests := map[string]string{
		"":                   "t.yaml:1:1: empty file",
		"\n  \n":             "t.yaml:1:1: empty file",
		"# only a comment\n": "t.yaml:1:1: invalid YAML or JSON: yaml: no documents in stream",
		"[1, 2]\n":           "t.yaml:1:1: not an OpenAPI document: want an object at the top level, got a list",
		"openapi: 2.0\n":     `t.yaml:1:10: openapi: unsupported OpenAPI version the number 2.0 (want 3.0.x or 3.1.x)`,
		"swagger: \"2.0\"\n": "t.yaml:1:10: Swagger 2.0 is not supported: convert the document to OpenAPI 3.0 or 3.1",
	}
	for text, want := range tests {
		if got := loadErr(t, text); got != want {
			t.Errorf("Load(%q):\n got: %s\nwant: %s", text, got, want)
		}
	}
}

func TestLoadDuplicateKeysInRoot(t *testing.T) {
	text := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\ninfo: {}\npaths: {}\npaths: {}\n"
	want := "t.yaml:3:1: duplicate key \"info\" (first at line 2)\nt.yaml:5:1: duplicate key \"paths\" (first at line 4)"
	if got := loadErr(t, text); got != want {
		t.Errorf("error:\n got: %s\nwant: %s", got, want)
	}
}

func TestLoadKinErrorsArePositioned(t *testing.T) {
	head := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    get:\n"
	tests := map[string]string{
		"      responses: 5\n":       "t.yaml:6:18: invalid OpenAPI document: cannot construct !!int `5` into map[string]*openapi3.ResponseRef in /paths/~1a/get/responses",
		"      parameters: {a: 1}\n": "t.yaml:6:19: invalid OpenAPI document: cannot construct !!map into openapi3.Parameters in /paths/~1a/get/parameters",
	}
	for tail, want := range tests {
		if got := loadErr(t, head+tail); got != want {
			t.Errorf("Load(%q):\n got: %s\nwant: %s", tail, got, want)
		}
	}
}
