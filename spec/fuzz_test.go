package spec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// decodeBytes decodes data as the value of an x-idempotency block, the way
// Load does for one operation without defaults: parse, decode, merge over
// the built-in defaults, check the key.
func decodeBytes(file string, data []byte) (*Contract, error) {
	src, err := parseSource(file, data)
	if err != nil {
		return nil, err
	}
	if dups := duplicateKeys(src); len(dups) > 0 {
		return nil, dups.errOrNil()
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Value: "x-idempotency", Line: 1, Column: 1}
	d := &decoder{file: file}
	b := d.decodeBlock(key, src.root, "x-idempotency")
	if b == nil {
		return nil, d.errs.errOrNil()
	}
	c := merge(b, nil)
	checkKey(d, c, "x-idempotency")
	if err := d.errs.errOrNil(); err != nil {
		return nil, err
	}
	return c, nil
}

var fuzzSeeds = []string{
	"{}",
	"retention: 72h\ntombstone: 30d\nconcurrency: wait\nwait-timeout: 5s\nreplay: stored\nmode: atomic\nlease: 30s\n",
	"key: {in: header, name: Idempotency-Key, required: true, max-length: 255}\n",
	"key: {in: body, name: /idempotency_key}\nnatural-key: [/shop_id, /external_order_id]\n",
	"scope: [tenant]\nfingerprint: {include: [/customer_id, /items], exclude: [/client_sent_at], unordered: [/items]}\n",
	"store-failures: [4xx, 409]\neffects:\n  - name: email\n    on-unknown: retry\n  - {name: charge, on-unknown: halt}\n",
	`{"retention": "1d12h", "effects": [{"name": "x"}]}`,
	"concurrency: wiat\n",
	"retension: 72h\n",
	"retention: 3 days\n",
	"scope: tenant\n",
	"store-failures: [5xx, 600, abc]\n",
	"key: {in: body}\n",
	"key: {name: 'a b'}\n",
	"effects: [1, {on-unknown: maybe}]\n",
	"mode: phased\nlease: 30s\nsteps:\n  - {name: record, output: {$ref: '#/components/schemas/R'}}\n  - {name: charge, external: true, on-unknown: verify, timeout: 10s}\n  - {name: done}\n",
	"steps: [1, {external: maybe, timeout: 0s, output: {type: object}}]\n",
	"fingerprint: {include: [items, /a~2]}\n",
	"lease: 1s\nlease: 2s\n",
	"[1, 2]",
	"true",
	"a: &x [*x]\n",
	"retention: !!binary aGVsbG8=\n",
	"key: {max-length: 99999999999999999999}\n",
	"{retention: [",
	"\"\\ud83d\"",
}

// FuzzDecodeContract feeds arbitrary bytes to the x-idempotency decoder.
// It must never panic, and must return either a contract or an error whose
// every entry is an *Error with a position in the file.
func FuzzDecodeContract(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeBytes("fuzz.yaml", data)
		if (c == nil) == (err == nil) {
			t.Fatalf("got contract %v and error %v, want exactly one", c, err)
		}
		if err != nil {
			checkPositioned(t, err)
			return
		}
		checkContract(t, c)
	})
}

// checkPositioned asserts that err is an *Error or an ErrorList of them,
// each naming the file and a line, and that it formats.
func checkPositioned(t *testing.T, err error) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T %v is neither *Error nor ErrorList", err, err)
		}
		list = ErrorList{e}
	}
	if len(list) == 0 {
		t.Fatal("empty ErrorList returned as an error")
	}
	for _, e := range list {
		if e.Pos.File != "fuzz.yaml" || e.Pos.Line < 1 || e.Pos.Col < 1 {
			t.Errorf("error %q has position %+v, want fuzz.yaml:line:col", e.Msg, e.Pos)
		}
	}
	if !strings.HasPrefix(err.Error(), "fuzz.yaml:") {
		t.Errorf("Error() = %q, want it to start with the position", err.Error())
	}
}

// checkContract asserts what a decoded contract guarantees: positive
// durations and lengths, allowed enum values, and a position on every
// value given in the input.
func checkContract(t *testing.T, c *Contract) {
	t.Helper()
	for _, v := range []int64{
		int64(c.Retention.Value), int64(c.Tombstone.Value), int64(c.WaitTimeout.Value),
		int64(c.Lease.Value), int64(c.Key.MaxLength.Value),
	} {
		if v <= 0 {
			t.Errorf("non-positive duration or length %d in %+v", v, c)
		}
	}
	switch {
	case c.Key.In.Value != KeyInHeader && c.Key.In.Value != KeyInBody,
		c.Concurrency.Value != ConcurrencyWait && c.Concurrency.Value != ConcurrencyReject,
		c.Replay.Value != ReplayStored && c.Replay.Value != ReplayCurrent,
		c.Mode.Value != ModeAtomic && c.Mode.Value != ModePhased:
		t.Errorf("enum value out of range in %+v", c)
	}
	for _, e := range c.Effects {
		if !e.Name.Set || e.Name.Pos.Line < 1 {
			t.Errorf("effect without a positioned name: %+v", e)
		}
	}
	for _, s := range c.Steps {
		switch {
		case !s.Name.Set || s.Name.Pos.Line < 1 || s.External.Pos.Line < 1:
			t.Errorf("step without a positioned name and external: %+v", s)
		case s.Timeout.Set && s.Timeout.Value <= 0,
			s.OnUnknown.Set && s.OnUnknown.Value != OnUnknownRetry && s.OnUnknown.Value != OnUnknownVerify && s.OnUnknown.Value != OnUnknownHalt:
			t.Errorf("step with a bad timeout or on-unknown: %+v", s)
		}
	}
	for _, p := range [][]Field[string]{c.NaturalKey, c.Fingerprint.Include, c.Fingerprint.Exclude, c.Fingerprint.Unordered} {
		for _, f := range p {
			if pointerProblem(f.Value) != "" || f.Pos.Line < 1 {
				t.Errorf("bad pointer %+v", f)
			}
		}
	}
}

// FuzzLoad feeds arbitrary documents to Load. It must never panic, and
// must return either a document or a positioned error.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		specHead + "        retention: 72h\n",
		specHead + "        concurrency: wiat\n",
		sharedBadSchema,
		"openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\nwebhooks:\n  w:\n    post:\n      x-idempotency: {key: {in: body, name: /id}}\n      responses: {\"200\": {description: ok}}\n",
		"openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a/{id}:\n    get:\n      responses: {\"200\": {content: {application/json: {schema: {$ref: '#/nope'}}}}}\n",
		`{"openapi": "3.0.3", "paths": {"/a": {"$ref": "#/paths/~1a"}}}`,
		// $ref cycles through the file's own name and through a pointer
		// into an inline schema, and references that double per level.
		"openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    post:\n      requestBody: {content: {application/json: {schema: {type: object, properties: {n: {$ref: 'fuzz.yaml#/paths/~1a/post/requestBody/content/application~1json/schema'}}}}}}\n      responses: {\"200\": {description: ok}}\n",
		"openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    post:\n      requestBody: {content: {application/json: {schema: {$ref: '#/paths/~1a/post/requestBody/content/application~1json/schema'}}}}\n      responses: {\"200\": {description: ok}}\n",
		"openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /a:\n    post:\n      requestBody: {content: {application/json: {schema: {$ref: '#/x-s/a'}}}}\n      responses: {\"200\": {description: ok}}\nx-s:\n  a: {properties: {x: {$ref: '#/x-s/b'}, y: {$ref: '#/x-s/b'}}}\n  b: {properties: {x: {$ref: '#/x-s/c'}, y: {$ref: '#/x-s/c'}}}\n  c: {$ref: '#/x-s/a'}\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		doc, err := Load(context.Background(), p, LoadOptions{})
		if (doc == nil) == (err == nil) {
			t.Fatalf("got document %v and error %v, want exactly one", doc, err)
		}
		if err == nil {
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Pos.File != p {
			t.Errorf("error %T %v does not name the file", err, err)
		}
	})
}
