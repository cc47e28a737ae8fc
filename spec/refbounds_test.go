package spec

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// loadMeasured loads the spec at path, as loadGuarded does, and logs how
// long the load took and how much it allocated. It fails the test when
// the load allocated more than 200 MiB, the bound a refusal must keep to;
// the time is logged only, so the verdict does not depend on the
// machine's speed.
func loadMeasured(t *testing.T, path string, opts LoadOptions) (*Document, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	doc, err := loadGuardedWith(t, path, opts, 30*time.Second)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%s: %v, allocated %d KiB", filepath.Base(path), took.Round(time.Millisecond), alloc>>10)
	if alloc > 200<<20 {
		t.Errorf("the load allocated %d MiB, want at most 200 MiB", alloc>>20)
	}
	return doc, err
}

// specWithBody is a spec with one annotated operation whose request body
// schema is body, written from line 10 on with the indent of a value of
// schema:, and rest appended.
func specWithBody(body, rest string) string {
	return `openapi: 3.0.3
info: {title: refs, version: "1"}
paths:
  /orders:
    post:
      x-idempotency: {}
      requestBody:
        content:
          application/json:
            schema:
` + body + `      responses:
        "201": {description: created}
` + rest
}

// bodyPointer is the JSON pointer of the request body schema of
// specWithBody.
const bodyPointer = "#/paths/~1orders/post/requestBody/content/application~1json/schema"

// TestLoadRefusesRefCycles is the reproduction of the $ref cycles that
// made check and generate run without end (60 s and 390 MB and growing):
// a file that names itself, two files that name each other, and a JSON
// pointer into an inline schema that holds the reference. Each is refused
// at the $ref that closes the cycle, with the references it passes
// through, before kin-openapi or the planner sees it.
func TestLoadRefusesRefCycles(t *testing.T) {
	tests := []struct {
		name string
		// files are written into the spec's directory; openapi.yaml is
		// the spec.
		files map[string]string
		// at is the file and line:col of the error, want part of its
		// message.
		at, want string
	}{{
		name: "a file that names itself",
		files: map[string]string{"openapi.yaml": specWithBody(
			"              type: object\n              properties:\n                next: {$ref: 'openapi.yaml"+bodyPointer+"'}\n", "")},
		at: "openapi.yaml:13:30", want: "(it names a node that holds it)",
	}, {
		name: "the whole file as a schema",
		files: map[string]string{"openapi.yaml": specWithBody(
			"              $ref: 'openapi.yaml'\n", "")},
		at: "openapi.yaml:11:21", want: "(it names a node that holds it)",
	}, {
		name: "two files that name each other",
		files: map[string]string{
			"openapi.yaml": specWithBody("              $ref: 'order.yaml#/Order'\n", ""),
			"order.yaml":   "Order:\n  type: object\n  properties:\n    line: {$ref: 'line.yaml#/Line'}\n",
			"line.yaml":    "Line:\n  type: object\n  properties:\n    order: {$ref: 'order.yaml#/Order'}\n",
		},
		at: "line.yaml:4:19", want: `(through order.yaml:4:18 "line.yaml#/Line")`,
	}, {
		name: "a pointer into an inline schema",
		files: map[string]string{"openapi.yaml": specWithBody(
			"              type: object\n              properties:\n                next: {$ref: '"+bodyPointer+"'}\n", "")},
		at: "openapi.yaml:13:30", want: "closes a cycle of references (it names a node that holds it)",
	}, {
		name: "a pointer into an inline schema of another file",
		files: map[string]string{
			"openapi.yaml": specWithBody("              $ref: 'shapes.yaml#/Tree/properties/node'\n", ""),
			"shapes.yaml":  "Tree:\n  type: object\n  properties:\n    node:\n      type: object\n      properties:\n        child: {$ref: '#/Tree/properties/node'}\n",
		},
		at: "shapes.yaml:7:23", want: "closes a cycle of references (it names a node that holds it)",
	}, {
		name: "a chain of references back to its start",
		files: map[string]string{
			"openapi.yaml": specWithBody("              $ref: 'a.yaml#/A'\n", ""),
			"a.yaml":       "A: {$ref: 'b.yaml#/B'}\n",
			"b.yaml":       "B: {$ref: 'a.yaml#/A'}\n",
		},
		at: "b.yaml:1:11", want: `(through a.yaml:1:11 "b.yaml#/B")`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				putFile(t, dir, name, content)
			}
			_, err := loadMeasured(t, filepath.Join(dir, "openapi.yaml"), LoadOptions{})
			e := onlyError(t, err)
			// Files other than the spec are named by their path.
			msg := strings.ReplaceAll(e.Msg, dir+string(filepath.Separator), "")
			if got := strings.TrimPrefix(e.Pos.String(), dir+string(filepath.Separator)); got != tt.at || e.Path != "$ref" || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want one at %s that says %q", e, tt.at, tt.want)
			}
			if !strings.Contains(e.Msg, "components/schemas") {
				t.Errorf("error %q gives no fix", e)
			}
		})
	}
}

// TestLoadRefCyclesThroughComponents loads recursive schemas that pass
// through a schema under components/schemas, which is planned once by
// name: in the spec, named by the spec's own file name, and in another
// file. A $ref inside an example is data, not a cycle.
func TestLoadRefCyclesThroughComponents(t *testing.T) {
	node := "      type: object\n      properties:\n        children: {type: array, items: {$ref: '%s'}}\n"
	tests := map[string]map[string]string{
		"local": {"openapi.yaml": specWithBody("              $ref: '#/components/schemas/Node'\n",
			"components:\n  schemas:\n    Node:\n"+fmt.Sprintf(node, "#/components/schemas/Node"))},
		"by the spec's name": {"openapi.yaml": specWithBody("              $ref: 'openapi.yaml#/components/schemas/Node'\n",
			"components:\n  schemas:\n    Node:\n"+fmt.Sprintf(node, "openapi.yaml#/components/schemas/Node"))},
		"in another file": {
			"openapi.yaml": specWithBody("              $ref: 'shapes.yaml#/components/schemas/Node'\n", ""),
			"shapes.yaml":  "components:\n  schemas:\n    Node:\n" + fmt.Sprintf(node, "#/components/schemas/Node"),
		},
		"an example that names its schema": {"openapi.yaml": specWithBody(
			"              type: object\n              example: {$ref: '"+bodyPointer+"'}\n", "")},
	}
	for name, files := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range files {
				putFile(t, dir, name, content)
			}
			if _, err := loadMeasured(t, filepath.Join(dir, "openapi.yaml"), LoadOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// doublingRefs is a spec whose request body names S0 in the file
// shapes.yaml, where each Sn has two properties that name S(n+1): the
// body expands to 2^levels schemas, from a file of a few KB.
func doublingRefs(levels int) (spec, shapes string) {
	var b strings.Builder
	for i := range levels {
		fmt.Fprintf(&b, "S%d:\n  type: object\n  properties:\n    a: {$ref: '#/S%d'}\n    b: {$ref: '#/S%d'}\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "S%d: {type: string}\n", levels)
	return specWithBody("              $ref: 'shapes.yaml#/S0'\n", ""), b.String()
}

// TestLoadRefusesDoublingRefs is the reproduction of references that
// name one inline schema twice per level, which made check run without
// end: refused at the $ref that crosses the expansion budget. The same
// shape under components/schemas is planned once per schema and loads.
func TestLoadRefusesDoublingRefs(t *testing.T) {
	spec, shapes := doublingRefs(20)
	dir := t.TempDir()
	putFile(t, dir, "shapes.yaml", shapes)
	p := putFile(t, dir, "openapi.yaml", spec)
	_, err := loadMeasured(t, p, LoadOptions{})
	e := onlyError(t, err)
	if !strings.HasSuffix(e.Pos.File, "shapes.yaml") || e.Path != "$ref" || !strings.Contains(e.Msg, "expands the document beyond 100000 nodes") {
		t.Errorf("error %q, want the expansion refused at a $ref of shapes.yaml", e)
	}

	components := strings.ReplaceAll(strings.ReplaceAll(shapes, "'#/S", "'#/components/schemas/S"), "\n", "\n      ")
	p = putFile(t, dir, "named.yaml", strings.Replace(spec, "shapes.yaml#/S0", "#/components/schemas/S0", 1)+
		"components:\n  schemas:\n      "+strings.TrimSpace(components)+"\n")
	if _, err := loadMeasured(t, p, LoadOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestLoadRefusesDeepRefChain refuses a chain of references longer than
// the nesting limit, each reference a level, at the reference that
// crosses it.
func TestLoadRefusesDeepRefChain(t *testing.T) {
	var b strings.Builder
	for i := range 2 * maxDepth {
		fmt.Fprintf(&b, "  L%d: {$ref: '#/x-chain/L%d'}\n", i, i+1)
	}
	fmt.Fprintf(&b, "  L%d: {type: string}\n", 2*maxDepth)
	p := putFile(t, t.TempDir(), "openapi.yaml", specWithBody("              $ref: '#/x-chain/L0'\n", "x-chain:\n"+b.String()))
	_, err := loadMeasured(t, p, LoadOptions{})
	e := onlyError(t, err)
	if e.Path != "$ref" || !strings.Contains(e.Msg, "deeper than 128 levels of objects, arrays and references") {
		t.Errorf("error %q, want the chain refused at a $ref", e)
	}
}

// TestLoadRefusesRemoteRefCycle refuses a cycle between two remote
// documents, one naming the other by a relative reference, at the $ref
// in the remote document that closes it, with each document fetched once.
func TestLoadRefusesRemoteRefCycle(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch r.URL.Path {
		case "/a.yaml":
			w.Write([]byte("A:\n  type: object\n  properties:\n    b: {$ref: 'b.yaml#/B'}\n"))
		case "/b.yaml":
			w.Write([]byte("B:\n  type: object\n  properties:\n    a: {$ref: 'a.yaml#/A'}\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	p := putFile(t, t.TempDir(), "openapi.yaml", refSpec(srv.URL+"/a.yaml#/A"))
	_, err := loadMeasured(t, p, LoadOptions{AllowRemoteRefs: true, AllowRemoteRefHosts: []string{"127.0.0.1"}})
	e := onlyError(t, err)
	if want := (Position{File: srv.URL + "/b.yaml", Line: 4, Col: 15}); e.Pos != want || !strings.Contains(e.Msg, `closes a cycle of references (through `+srv.URL+`/a.yaml:4:15 "b.yaml#/B")`) {
		t.Errorf("error %q, want the cycle refused at %s", e, want)
	}
	if n := requests.Load(); n != 2 {
		t.Errorf("%d requests, want one per document", n)
	}
}
