package explain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/idemgen/idemgen/spec"
)

// explainSpec has one operation per contract shape the sentences cover.
const explainSpec = `openapi: 3.0.3
info: {title: explain, version: "1"}
paths:
  /events:
    post:
      operationId: receiveEvent
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [event_id]
              properties:
                event_id: {type: string}
                sent_at: {type: string}
                tags: {type: array, items: {type: string}}
      responses:
        "204": {description: ok}
      x-idempotency:
        key: {in: body, name: /event_id, required: false, max-length: 64}
        fingerprint:
          exclude: [/sent_at]
          unordered: [/tags]
        retention: 7d
        tombstone: 90d
        concurrency: reject
        store-failures: [409, 422]
        effects:
          - {name: notify, on-unknown: retry}
          - {name: settle, on-unknown: verify}
  /orders/{shop}/{id}:
    delete:
      operationId: deleteOrder
      parameters:
        - {name: shop, in: path, required: true, schema: {type: string}}
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: Idempotency-Key, in: header, schema: {type: string}}
      responses:
        "204": {description: ok}
      x-idempotency:
        scope: [tenant, account]
    put:
      operationId: putOrder
      parameters:
        - {name: shop, in: path, required: true, schema: {type: string}}
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        "204": {description: ok}
`

func loadExplainDoc(t *testing.T) *spec.Document {
	t.Helper()
	return loadDoc(t, "explain.yaml", explainSpec)
}

// loadDoc loads text as the spec file name in a temporary directory.
func loadDoc(t *testing.T, name, text string) *spec.Document {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := spec.Load(context.Background(), path, spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// item returns the labelled item of items.
func item(t *testing.T, items []Item, label string) Item {
	t.Helper()
	for _, it := range items {
		if it.Label == label {
			return it
		}
	}
	t.Fatalf("no item %q in %+v", label, items)
	return Item{}
}

func TestBuild(t *testing.T) {
	r := Build(loadExplainDoc(t), Verdict{})
	if diff := cmp.Diff([]string{"`PUT /orders/{shop}/{id}`"}, r.Unprotected); diff != "" {
		t.Errorf("Unprotected (-want +got):\n%s", diff)
	}
	if want := "2 of 3 operations carry an idempotency contract."; r.Summary != want {
		t.Errorf("Summary = %q, want %q", r.Summary, want)
	}
	if len(r.Sections) != 2 || len(r.Refused) != 0 {
		t.Fatalf("got %d sections and refusals %q, want 2 and none", len(r.Sections), r.Refused)
	}
	events, orders := r.Sections[0], r.Sections[1]
	if events.Title != "receiveEvent — POST /events" || orders.Title != "deleteOrder — DELETE /orders/{shop}/{id}" {
		t.Errorf("titles %q, %q", events.Title, orders.Title)
	}
	tests := []struct {
		section Section
		label   string
		want    []string
	}{
		{events, "Retry", []string{"the same `event_id` body field", "The key is optional", "longer than 64 characters"}},
		{events, "Scope", []string{"Keys are global"}},
		{events, "Significant fields", []string{"the whole request body, leaving out `sent_at`, with `tags` compared in any order"}},
		{events, "Replay", []string{"A retry within 7 days with the same `event_id` body field and the same body apart from `sent_at` returns the first response, byte for byte"}},
		{events, "Expiry", []string{"After 7 days", "refused for 90 days with 409 `operation-expired`"}},
		{events, "Concurrent duplicate", []string{"gets 409 with `Retry-After` at once"}},
		{events, "Failures", []string{"Responses with status 409 or 422 are stored"}},
		{events, "Mode", []string{"Atomic"}},
		{orders, "Retry", []string{"the same `Idempotency-Key` header", "The key is required", "longer than 255 characters"}},
		{orders, "Scope", []string{"Keys are per `tenant` and `account`; a key sent under another tenant or account never matches"}},
		{orders, "Significant fields", []string{"no request body; the path parameters `shop` and `id` and the key identify it"}},
		{orders, "Replay", []string{"A retry within 24h with the same `Idempotency-Key` header and the same `shop` and `id` in the path returns the first response, byte for byte"}},
		{orders, "Concurrent duplicate", []string{"waits up to 5s"}},
		{orders, "Failures", []string{"Final client errors (4xx) are stored and replayed"}},
		{orders, "Mode", []string{"Atomic"}},
		{orders, "Effects", []string{"None declared."}},
	}
	for _, tt := range tests {
		t.Run(tt.section.Title+"/"+tt.label, func(t *testing.T) {
			got := item(t, tt.section.Items, tt.label).Text
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s: %q\ndoes not contain %q", tt.label, got, w)
				}
			}
		})
	}
	wantEffects := []string{"`notify`: when its outcome is unknown (a time-out, or a worker that died mid-call), it is called again", "`settle`: when its outcome is unknown (a time-out, or a worker that died mid-call), the worker asks the provider's `Verify` first"}
	effects := item(t, events.Items, "Effects").List
	if len(effects) != len(wantEffects) {
		t.Fatalf("effects %q", effects)
	}
	for i, w := range wantEffects {
		if !strings.HasPrefix(effects[i], w) {
			t.Errorf("effect %d = %q, want prefix %q", i, effects[i], w)
		}
	}
}

// TestBuildNotGenerated checks that explain follows the verdict it is
// given: an operation with errors of its own gets them instead of
// guarantees, and while generate refuses the spec no other operation is
// described as kept either; an error of no operation is given at the top.
func TestBuildNotGenerated(t *testing.T) {
	doc := loadExplainDoc(t)
	events, orders := doc.Operations[0], doc.Operations[1]
	if events.ID != "receiveEvent" || orders.ID != "deleteOrder" {
		t.Fatalf("operations %q, %q", events.ID, orders.ID)
	}
	phased := spec.Diagnostic{Pos: spec.Position{File: "explain.yaml", Line: 20, Col: 9}, Severity: spec.SeverityError, Rule: "IDEM020", Message: "mode phased is not generated yet"}
	shared := spec.Diagnostic{Pos: spec.Position{File: "explain.yaml", Line: 3, Col: 5}, Severity: spec.SeverityError, Rule: "IDEM110", Message: "pattern is not RE2"}

	r := Build(doc, Verdict{Errors: []spec.Diagnostic{shared, phased}, Operations: map[*spec.Operation][]spec.Diagnostic{events: {phased}}})
	if want := "2 of 3 operations carry an idempotency contract. None of them is generated: idemgen generate refuses the whole spec for the errors given below."; r.Summary != want {
		t.Errorf("Summary = %q, want %q", r.Summary, want)
	}
	if diff := cmp.Diff([]string{"explain.yaml:3:5: pattern is not RE2 (IDEM110)"}, r.Refused); diff != "" {
		t.Errorf("Refused (-want +got):\n%s", diff)
	}
	for _, s := range r.Sections {
		if len(s.Items) != 0 || s.Unkept == "" {
			t.Errorf("%s: described as kept under a refused spec: %+v", s.Title, s)
		}
	}
	if diff := cmp.Diff([]string{"explain.yaml:20:9: mode phased is not generated yet (IDEM020)"}, r.Sections[0].NotGenerated); diff != "" {
		t.Errorf("receiveEvent's reasons (-want +got):\n%s", diff)
	}
	want := "this contract has no error of its own, but idemgen generate refuses the whole spec for the errors of `receiveEvent — POST /events` and the errors given at the top, so no code is generated for it either."
	if diff := cmp.Diff([]string{want}, r.Sections[1].NotGenerated); diff != "" {
		t.Errorf("deleteOrder's reasons (-want +got):\n%s", diff)
	}

	checkRefusedRender(t, doc, Verdict{Errors: []spec.Diagnostic{shared}},
		"carry an idempotency contract. None of them is generated: idemgen generate refuses the whole spec for the errors given below.\n\n> **Not generated:** explain.yaml:3:5: pattern is not RE2 (IDEM110)\n\nMutating operations",
		"### receiveEvent — POST /events\n\n> **Not generated:** this contract has no error of its own, but idemgen generate refuses the whole spec for the errors given at the top, so no code is generated for it either.\n\nNo generated code keeps this contract",
	)
}

// checkRefusedRender renders doc under a verdict that refuses it and
// requires every want in the output, no contract item (Retry) described as
// kept, and no blank line doubled.
func checkRefusedRender(t *testing.T, doc *spec.Document, v Verdict, want ...string) {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, doc, v); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "\n\n\n") || strings.Contains(out, "**Retry.**") {
		t.Errorf("blank lines doubled, or a refused contract described as kept:\n%s", out)
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	doc := loadExplainDoc(t)
	var first, second bytes.Buffer
	if err := Render(&first, doc, Verdict{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&second, doc, Verdict{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.String(), second.String()); diff != "" {
		t.Errorf("two renders differ (-first +second):\n%s", diff)
	}
	out := first.String()
	if !strings.HasPrefix(out, "# Idempotency contracts: `") || !strings.HasSuffix(out, "\n") || strings.Contains(out, "\n\n\n") {
		t.Errorf("malformed Markdown:\n%s", out)
	}
	for _, h := range []string{"\n### receiveEvent — POST /events\n\n- **Retry.** ", "\n### deleteOrder — DELETE /orders/{shop}/{id}\n\n- **Retry.** "} {
		if !strings.Contains(out, h) {
			t.Errorf("output lacks %q:\n%s", h, out)
		}
	}
}
