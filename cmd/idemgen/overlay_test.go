package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOverlayUnmatchedFlag checks --overlay-unmatched on check: an action
// whose target matches nothing is an error (exit 2) by default and, with
// warn, a LOAD002 warning in every output format (stdout, not stderr) and
// a warning on generate's stderr that does not stop it, and an unknown
// value is a usage error.
func TestOverlayUnmatchedFlag(t *testing.T) {
	dir := t.TempDir()
	spec, overlay := filepath.Join(dir, "openapi.yaml"), filepath.Join(dir, "vendor.overlay.yaml")
	files := map[string]string{
		spec: `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      parameters:
        - {name: Idempotency-Key, in: header, required: true, schema: {type: string}}
      responses: {"201": {description: created}}
`,
		overlay: `overlay: 1.1.0
info: {title: t, version: "1"}
actions:
  - target: $.paths.*.post
    update:
      x-idempotency: {retention: 48h}
  - target: $.paths['/refunds'].post
    update:
      x-idempotency: {}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const unmatched = `:7:13: actions[1].target: target "$.paths['/refunds'].post" matches nothing in the document`

	_, stderr, code := runIdemgen("check", "--overlay", overlay, spec)
	if want := overlay + unmatched + "\n"; code != exitUnusable || stderr != want {
		t.Errorf("default: exit %d, stderr %q; want %d, %q", code, stderr, exitUnusable, want)
	}
	const message = `target "$.paths['/refunds'].post" matches nothing in the document`
	stdout, stderr, code := runIdemgen("check", "--overlay", overlay, "--overlay-unmatched", "warn", spec)
	if want := overlay + ":7:13: warning LOAD002: " + message + " (fix the action's target or remove the action)\n"; code != exitOK || stdout != want || stderr != "" {
		t.Errorf("warn: exit %d, stdout %q, stderr %q; want %d, %q and nothing on stderr (the first action should have applied)", code, stdout, stderr, exitOK, want)
	}
	stdout, _, code = runIdemgen("check", "--format", "github", "--overlay", overlay, "--overlay-unmatched", "warn", spec)
	if want := "::warning file=" + overlay + ",line=7,col=13,title=LOAD002::" + message; code != exitOK || !strings.HasPrefix(stdout, want) {
		t.Errorf("warn, github: exit %d, stdout %q; want it to start with %q", code, stdout, want)
	}
	if _, _, code := runIdemgen("check", "--fail-on", "warning", "--overlay", overlay, "--overlay-unmatched", "warn", spec); code != exitFindings {
		t.Errorf("warn, --fail-on warning: exit %d, want %d", code, exitFindings)
	}
	stdout, _, code = runIdemgen("explain", "--overlay", overlay, "--overlay-unmatched=warn", spec)
	if want := "- **Source.** Set by overlay `" + overlay + "`: action 1 (line 4)."; code != exitOK || !strings.Contains(stdout, want) {
		t.Errorf("explain: exit %d, output:\n%s\nwant it to contain %q", code, stdout, want)
	}
	out := filepath.Join(dir, "gen")
	_, stderr, code = runIdemgen("generate", "--overlay", overlay, "--overlay-unmatched", "warn", "--spec", spec, "--out", out, "--package", "gen")
	if want := overlay + ":7:13: warning: " + unmatched[len(":7:13: "):] + "\n"; code != exitOK || stderr != want {
		t.Errorf("generate, warn: exit %d, stderr %q; want %d, %q", code, stderr, exitOK, want)
	}
	if _, err := os.Stat(filepath.Join(out, "openapi_operations.go")); err != nil {
		t.Errorf("generate, warn: %v (the rest of the overlay applies and the files are written)", err)
	}
	if _, stderr, code := runIdemgen("check", "--overlay-unmatched", "ignore", spec); code != exitUnusable || !strings.Contains(stderr, `unknown overlay-unmatched value "ignore" (want error or warn)`) {
		t.Errorf("unknown value: exit %d, stderr %q", code, stderr)
	}
}
