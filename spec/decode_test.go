package spec

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specHead puts an x-idempotency block on POST /orders so that the block's
// first line is line 8, indented by 8 spaces.
const specHead = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      responses: {"200": {description: ok}}
      x-idempotency:
`

// loadErr loads text as t.yaml and returns the error text with the
// temporary directory stripped, or "" when it loaded.
func loadErr(t *testing.T, text string) string {
	t.Helper()
	p := writeSpec(t, "t.yaml", text)
	_, err := Load(context.Background(), p, LoadOptions{})
	if err == nil {
		return ""
	}
	return strings.ReplaceAll(err.Error(), filepath.Dir(p)+string(filepath.Separator), "")
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		block string
		want  string
	}{
		{"unknown enum", "concurrency: wiat",
			`t.yaml:8:22: x-idempotency.concurrency: unknown value "wiat" (want wait or reject)`},
		{"unknown field with hint", "retension: 72h",
			`t.yaml:8:9: x-idempotency: unknown field "retension" (did you mean "retention"?)`},
		{"unknown field without hint", "colour: blue",
			`t.yaml:8:9: x-idempotency: unknown field "colour"`},
		{"nested unknown field", "key: {maxlength: 10}",
			`t.yaml:8:15: x-idempotency.key: unknown field "maxlength" (did you mean "max-length"?)`},
		{"bad duration", "retention: 3 days",
			`t.yaml:8:20: x-idempotency.retention: invalid duration "3 days": want a duration such as 90m, 72h, 30d or 1d12h`},
		{"negative duration", "lease: -1h",
			`t.yaml:8:16: x-idempotency.lease: duration "-1h" must be positive`},
		{"zero duration", "wait-timeout: 0s",
			`t.yaml:8:23: x-idempotency.wait-timeout: duration "0s" must be positive`},
		{"duration out of range", "tombstone: 9999999999d",
			`t.yaml:8:20: x-idempotency.tombstone: invalid duration "9999999999d": duration out of range`},
		{"duration as number", "retention: 72",
			`t.yaml:8:20: x-idempotency.retention: want a duration such as 72h or 30d, got the number 72`},
		{"scope not a list", "scope: tenant",
			`t.yaml:8:16: x-idempotency.scope: want a list such as [tenant], got the string "tenant"`},
		{"empty scope entry", `scope: [""]`,
			`t.yaml:8:17: x-idempotency.scope[0]: must not be empty`},
		{"store-failures 5xx", "store-failures: [4xx, 5xx]",
			`t.yaml:8:31: x-idempotency.store-failures[1]: unknown value "5xx" (want "4xx" or a status code from 400 to 499)`},
		{"store-failures 500", "store-failures: [500]",
			`t.yaml:8:26: x-idempotency.store-failures[0]: unknown value "500" (want "4xx" or a status code from 400 to 499)`},
		{"key.in", "key: {in: query}",
			`t.yaml:8:19: x-idempotency.key.in: unknown value "query" (want header or body)`},
		{"max-length zero", "key: {max-length: 0}",
			`t.yaml:8:27: x-idempotency.key.max-length: must be greater than 0, got 0`},
		{"max-length string", `key: {max-length: "10"}`,
			`t.yaml:8:27: x-idempotency.key.max-length: want a whole number, got the string "10"`},
		{"required not bool", `key: {required: "yes"}`,
			`t.yaml:8:25: x-idempotency.key.required: want true or false, got the string "yes"`},
		{"key not an object", "key: Idempotency-Key",
			`t.yaml:8:14: x-idempotency.key: want an object, got the string "Idempotency-Key"`},
		{"body key without name", "key: {in: body}",
			`t.yaml:8:19: x-idempotency.key.name: a key in the body needs a name: the JSON pointer of the field, such as /idempotency_key`},
		{"body key name not a pointer", "key: {in: body, name: idempotency_key}",
			`t.yaml:8:31: x-idempotency.key.name: with in: body the name is a JSON pointer: "idempotency_key" does not start with / (write /idempotency_key)`},
		{"bad header name", `key: {name: "Idem Key"}`,
			`t.yaml:8:21: x-idempotency.key.name: invalid header name "Idem Key" (want a token such as Idempotency-Key)`},
		{"effect on-unknown", "effects: [{name: x, on-unknown: maybe}]",
			`t.yaml:8:41: x-idempotency.effects[0].on-unknown: unknown value "maybe" (want retry, verify or halt)`},
		{"effect without name", "effects: [{on-unknown: retry}]",
			`t.yaml:8:19: x-idempotency.effects[0]: an effect needs a name`},
		{"effect not an object", "effects: [email]",
			`t.yaml:8:19: x-idempotency.effects[0]: want an object with name and on-unknown, got the string "email"`},
		{"fingerprint pointer", "fingerprint: {include: [items]}",
			`t.yaml:8:33: x-idempotency.fingerprint.include[0]: not a JSON pointer: "items" does not start with / (write /items)`},
		{"fingerprint pointer escape", "fingerprint: {exclude: [/a~2b]}",
			`t.yaml:8:33: x-idempotency.fingerprint.exclude[0]: not a JSON pointer: "/a~2b" has an escape other than ~0 or ~1`},
		{"fingerprint not an object", "fingerprint: [/a]",
			`t.yaml:8:22: x-idempotency.fingerprint: want an object, got a list`},
		{"natural-key not a list", "natural-key: /shop_id",
			`t.yaml:8:22: x-idempotency.natural-key: want a list of JSON pointers such as [/items], got the string "/shop_id"`},
		{"mode case", "mode: PHASED",
			`t.yaml:8:15: x-idempotency.mode: unknown value "PHASED" (want atomic or phased)`},
		{"replay null", "replay:",
			`t.yaml:8:16: x-idempotency.replay: want stored or current, got null`},
		{"duplicate field", "lease: 1s\n        lease: 2s",
			`t.yaml:9:9: duplicate key "lease" (first at line 8)`},
		{"errors sorted by position", "replay: nope\n        mode: x\n        concurrency: 1",
			`t.yaml:8:17: x-idempotency.replay: unknown value "nope" (want stored or current)` + "\n" +
				`t.yaml:9:15: x-idempotency.mode: unknown value "x" (want atomic or phased)` + "\n" +
				`t.yaml:10:22: x-idempotency.concurrency: want wait or reject, got the number 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := loadErr(t, specHead+"        "+tt.block+"\n")
			if got != tt.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestDecodeBlockNotAnObject(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"bool", "true", `t.yaml:7:22: x-idempotency: want an object, got true (write {} to take every default)`},
		{"list", "[key]", `t.yaml:7:22: x-idempotency: want an object, got a list (write {} to take every default)`},
		{"null", "", `t.yaml:7:21: x-idempotency: want an object, got null (write {} to take every default)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.TrimSuffix(specHead, "\n") + " " + tt.value + "\n"
			if got := loadErr(t, text); got != tt.want {
				t.Errorf("error:\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestDecodeDefaultsErrors(t *testing.T) {
	text := `openapi: 3.0.3
info: {title: t, version: "1"}
x-idempotency-defaults:
  retention: forever
paths: {}
`
	want := `t.yaml:4:14: x-idempotency-defaults.retention: invalid duration "forever": want a duration such as 90m, 72h, 30d or 1d12h`
	if got := loadErr(t, text); got != want {
		t.Errorf("error:\n got: %s\nwant: %s", got, want)
	}
}

func TestDecodeOperationOverridesDefaults(t *testing.T) {
	text := specHead + `        scope: []
        natural-key: []
        effects: []
`
	text = strings.Replace(text, "paths:", `x-idempotency-defaults:
  scope: [tenant]
  natural-key: [/id]
  effects: [{name: audit}]
paths:`, 1)
	p := writeSpec(t, "t.yaml", text)
	doc := loadT(t, p)
	c := doc.Operations[0].Contract
	if !c.Scope.Set || len(c.Scope.Value) != 0 || c.Scope.Pos.Line != 12 {
		t.Errorf("Scope = %+v, want the operation's empty list at line 12", c.Scope)
	}
	if len(c.NaturalKey) != 0 || len(c.Effects) != 0 {
		t.Errorf("NaturalKey = %v, Effects = %v; want the operation's empty lists to override the defaults", c.NaturalKey, c.Effects)
	}
}

func TestErrorListCapsOutput(t *testing.T) {
	var b strings.Builder
	b.WriteString(specHead)
	for i := range maxListed + 5 {
		fmt.Fprintf(&b, "        unknown%02d: x\n", i)
	}
	p := writeSpec(t, "t.yaml", b.String())
	_, err := Load(context.Background(), p, LoadOptions{})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v (%T), want an ErrorList", err, err)
	}
	if len(list) != maxListed+5 {
		t.Errorf("len(list) = %d, want %d", len(list), maxListed+5)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxListed+1 || lines[maxListed] != "… and 5 more" {
		t.Errorf("Error() has %d lines ending %q, want %d ending %q", len(lines), lines[len(lines)-1], maxListed+1, "… and 5 more")
	}
	var first *Error
	if !errors.As(err, &first) || first.Pos.Line != 8 || first.Path != "x-idempotency" {
		t.Errorf("errors.As(*Error) = %+v, want the first error at line 8", first)
	}
}

func TestDidYouMean(t *testing.T) {
	tests := map[string]string{
		"retension":     ` (did you mean "retention"?)`,
		"wait_timeout":  ` (did you mean "wait-timeout"?)`,
		"storeFailures": ` (did you mean "store-failures"?)`,
		"Lease":         ` (did you mean "lease"?)`,
		"effect":        ` (did you mean "effects"?)`,
		"colour":        "",
	}
	got := map[string]string{}
	for name := range tests {
		got[name] = didYouMean(name, blockFields)
	}
	if diff := cmp.Diff(tests, got); diff != "" {
		t.Errorf("didYouMean (-want +got):\n%s", diff)
	}
}

func TestMisplacedBlocks(t *testing.T) {
	text := `openapi: 3.0.3
info: {title: t, version: "1"}
x-idempotency: {}
paths:
  /orders:
    x-idempotency: {}
    post:
      x-idempotency-defaults: {}
      responses: {"200": {description: ok}}
`
	want := strings.Join([]string{
		"t.yaml:3:1: x-idempotency: at the document root, write x-idempotency-defaults; x-idempotency belongs on an operation",
		"t.yaml:6:5: x-idempotency: x-idempotency belongs on an operation such as post, not on the path item",
		"t.yaml:8:7: x-idempotency-defaults: x-idempotency-defaults belongs at the document root; on an operation, write x-idempotency",
	}, "\n")
	if got := loadErr(t, text); got != want {
		t.Errorf("error:\n got: %s\nwant: %s", got, want)
	}
}
