package spec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// loadGuarded loads the spec at path and fails the test if the load does
// not return within guard. The guard only keeps a regression from hanging
// the run; what the tests assert is the error.
func loadGuarded(t *testing.T, path string, guard time.Duration) (*Document, error) {
	t.Helper()
	return loadGuardedWith(t, path, LoadOptions{}, guard)
}

// loadGuardedWith is loadGuarded with options.
func loadGuardedWith(t *testing.T, path string, opts LoadOptions, guard time.Duration) (*Document, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	defer cancel()
	type result struct {
		doc *Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		doc, err := Load(ctx, path, opts)
		done <- result{doc, err}
	}()
	select {
	case r := <-done:
		return r.doc, r.err
	case <-time.After(guard):
		t.Fatalf("Load(%s) did not return within %s", path, guard)
		return nil, nil
	}
}

// putFile writes content to name under dir and returns its path.
func putFile(t *testing.T, dir, name, content string) string {
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

// onlyError returns the one *Error that err is or holds.
func onlyError(t *testing.T, err error) *Error {
	t.Helper()
	if err == nil {
		t.Fatal("Load succeeded, want an error")
	}
	var list ErrorList
	if errors.As(err, &list) {
		if len(list) != 1 {
			t.Fatalf("%d errors, want 1:\n%v", len(list), err)
		}
		return list[0]
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not positioned: %v", err, err)
	}
	return e
}

// textAt returns the text of line (1-based) of data from column col on.
func textAt(data string, line, col int) string {
	lines := strings.Split(data, "\n")
	if line < 1 || line > len(lines) || col < 1 || col > len(lines[line-1])+1 {
		return ""
	}
	return lines[line-1][col-1:]
}

// aliasBomb is a 1.5 KB billion-laughs spec: each schema holds ten aliases
// of the one before it, so the request body's schema expands to 10^9
// nodes.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString(`openapi: 3.0.3
info: {title: bomb, version: "1"}
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/S9'}
      responses:
        "200": {description: ok}
components:
  schemas:
    S0: &s0 {type: string}
`)
	for i := 1; i <= 9; i++ {
		var props []string
		for j := range 10 {
			props = append(props, fmt.Sprintf("p%d: *s%d", j, i-1))
		}
		fmt.Fprintf(&b, "    S%d: &s%d {type: object, properties: {%s}}\n", i, i, strings.Join(props, ", "))
	}
	return b.String()
}

// TestLoadRefusesAliasBomb is the reproduction of the alias bomb that
// hung check, explain and generate for over 20 s at gigabytes: it is
// refused, at the alias that crosses the expansion budget, before
// kin-openapi sees it.
func TestLoadRefusesAliasBomb(t *testing.T) {
	data := aliasBomb()
	if len(data) > 2048 {
		t.Fatalf("the bomb is %d bytes, want a small one", len(data))
	}
	p := putFile(t, t.TempDir(), "bomb.yaml", data)
	_, err := loadGuarded(t, p, 2*time.Second)
	e := onlyError(t, err)
	if !strings.Contains(e.Msg, "expands the document beyond 100000 nodes") {
		t.Errorf("error %q, want the alias expansion refused", e)
	}
	if at := textAt(data, e.Pos.Line, e.Pos.Col); e.Pos.File != p || !strings.HasPrefix(at, "*s") {
		t.Errorf("error at %s (%q), want it at an alias of %s", e.Pos, at, p)
	}
}

// TestLoadRefusesOverlayAliasBomb refuses an alias bomb in an overlay
// file, which is parsed as the spec is.
func TestLoadRefusesOverlayAliasBomb(t *testing.T) {
	dir := t.TempDir()
	p := putFile(t, dir, "openapi.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths: {}\n")
	ov := putFile(t, dir, "overlay.yaml", "overlay: 1.0.0\ninfo: {title: o, version: \"1\"}\nx-bomb:\n"+aliasBomb()[strings.Index(aliasBomb(), "    S0:"):]+"actions: []\n")
	_, err := Load(t.Context(), p, LoadOptions{Overlays: []string{ov}})
	e := onlyError(t, err)
	if e.Pos.File != ov || !strings.Contains(e.Msg, "expands the document beyond 100000 nodes") {
		t.Errorf("error %q, want the overlay's expansion refused", e)
	}
}

// TestLoadAliasesWithinBudget loads a spec that shares a schema through
// an anchor: aliases as people write them still work.
func TestLoadAliasesWithinBudget(t *testing.T) {
	p := putFile(t, t.TempDir(), "shared.yaml", `openapi: 3.0.3
info: {title: shared, version: "1"}
paths:
  /a:
    post:
      requestBody:
        content:
          application/json:
            schema: &order {type: object, properties: {id: {type: string}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: *order
`)
	doc, err := loadGuarded(t, p, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	resp := doc.Operations[0].Op.Responses.Value("200").Value.Content["application/json"].Schema.Value
	if resp.Properties["id"] == nil {
		t.Errorf("the aliased response schema has no id property: %+v", resp)
	}
}

// TestLoadRefusesSelfAlias refuses an alias inside the node it names,
// which expands without end.
func TestLoadRefusesSelfAlias(t *testing.T) {
	data := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\nx-loop: &a [1, *a]\npaths: {}\n"
	p := putFile(t, t.TempDir(), "loop.yaml", data)
	_, err := loadGuarded(t, p, 10*time.Second)
	e := onlyError(t, err)
	if e.Pos.Line != 3 || e.Pos.Col != 16 || !strings.Contains(e.Msg, "inside the node it names") {
		t.Errorf("error %q, want the alias at 3:16 refused", e)
	}
}

// nested returns n arrays nested in one another, innermost empty.
func nested(n int) string {
	return strings.Repeat("[", n) + strings.Repeat("]", n)
}

// TestLoadNestingLimit loads a document nested exactly maxDepth levels
// deep and refuses one level more, in YAML and JSON, at the first value
// past the limit; an alias that nests the document too deeply is refused
// at the alias.
func TestLoadNestingLimit(t *testing.T) {
	dir := t.TempDir()
	yamlDoc := func(arrays int) string {
		// The root mapping is level 1; the k-th array of x-deep starts at
		// column 8+k of line 3 and is level k+1.
		return "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\nx-deep: " + nested(arrays) + "\npaths: {}\n"
	}
	jsonDoc := func(arrays int) string {
		return "{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"t\", \"version\": \"1\"}, \"paths\": {},\n\"x-deep\": " + nested(arrays) + "}\n"
	}
	for _, tt := range []struct {
		name, data string
		line, col  int
	}{
		{"yaml", yamlDoc(maxDepth), 3, 8 + maxDepth},
		{"json", jsonDoc(maxDepth), 2, 10 + maxDepth},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ok := strings.Replace(tt.data, nested(maxDepth), nested(maxDepth-1), 1)
			if _, err := loadGuarded(t, putFile(t, dir, tt.name+"-ok", ok), 10*time.Second); err != nil {
				t.Fatalf("a document %d levels deep: %v", maxDepth, err)
			}
			p := putFile(t, dir, tt.name+"-deep", tt.data)
			_, err := loadGuarded(t, p, 10*time.Second)
			e := onlyError(t, err)
			if e.Pos != (Position{File: p, Line: tt.line, Col: tt.col}) || !strings.Contains(e.Msg, "nested deeper than 128 levels") {
				t.Errorf("error %q, want it at %d:%d", e, tt.line, tt.col)
			}
		})
	}
	t.Run("alias", func(t *testing.T) {
		data := "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\nx-a: &deep " + nested(100) + "\nx-b: " + strings.Repeat("[", 40) + "*deep" + strings.Repeat("]", 40) + "\npaths: {}\n"
		p := putFile(t, dir, "alias-deep", data)
		_, err := loadGuarded(t, p, 10*time.Second)
		e := onlyError(t, err)
		if e.Pos.Line != 4 || e.Pos.Col != 46 || !strings.Contains(e.Msg, "alias *deep nests the document deeper") {
			t.Errorf("error %q, want it at the alias, 4:46", e)
		}
	})
}

// deepSchema is the reproduction of the spec whose request body nests
// inline object schemas depth levels deep, which took generate 11 s and
// 650 MB and wrote a 57 KB line.
func deepSchema(depth int) string {
	s := "{type: string}"
	for range depth {
		s = "{type: object, properties: {a: " + s + "}}"
	}
	return `openapi: 3.0.3
info: {title: deep, version: "1"}
paths:
  /orders:
    post:
      requestBody:
        content:
          application/json:
            schema: ` + s + `
      responses:
        "201": {description: created}
      x-idempotency: {}
`
}

// TestLoadRefusesDeepSchema refuses the 3,000-deep schema at the first
// schema past the nesting limit, with memory bounded well below what
// generating it cost.
func TestLoadRefusesDeepSchema(t *testing.T) {
	data := deepSchema(3000)
	p := putFile(t, t.TempDir(), "deep.yaml", data)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := loadGuarded(t, p, 2*time.Second)
	runtime.ReadMemStats(&after)
	e := onlyError(t, err)
	if e.Pos.File != p || e.Pos.Line != 9 || !strings.Contains(e.Msg, "nested deeper than 128 levels") {
		t.Fatalf("error %q, want the nesting refused on line 9", e)
	}
	// The schema value is level 8 (under the root, paths, /orders, post,
	// requestBody, content and application/json), and each inline schema
	// below it takes two levels, its properties and then the property's
	// schema: level 129 is the properties object of the 61st schema.
	if at := strings.TrimPrefix(textAt(data, e.Pos.Line, e.Pos.Col), "{"); !strings.HasPrefix(at, "a: {type: object") || e.Pos.Col != len("            schema: ")+1+60*len("{type: object, properties: {a: ")+len("{type: object, properties: ") {
		t.Errorf("error at column %d (%.20q), want it at the properties of the 61st schema", e.Pos.Col, at)
	}
	t.Logf("allocated %d KiB", (after.TotalAlloc-before.TotalAlloc)>>10)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("the load allocated %d MiB, want a bounded amount", alloc>>20)
	}
}
