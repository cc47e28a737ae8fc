package generator

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// hostileID is an operationId that tries to end a comment and start
// code; generated comments must keep it inert.
const hostileID = "evil*/ func init() { panic(1) } /*\n// next\x00line\u2028end"

// paramRunes are what random path-parameter names are made of: every
// kind of character OpenAPI allows in a name and a router may not.
var paramRunes = []rune("abcxyzABZ019-._~$é名")

// randomParam returns a random valid path-parameter name.
func randomParam(r *rand.Rand) string {
	n := 1 + r.IntN(8)
	var b strings.Builder
	for range n {
		b.WriteRune(paramRunes[r.IntN(len(paramRunes))])
	}
	return b.String()
}

// randomPathSpec loads a spec of n annotated operations whose paths use
// random parameter names in four shapes (a whole segment, a segment with
// a suffix, two parameters in one segment, two segments), plus one
// operation with a hostile operationId, and returns it with a test file
// for the generated package that mounts each operation's handler on a
// ServeMux and on chi and checks the parameter values it reads.
func randomPathSpec(t testing.TB, r *rand.Rand, n int) (*spec.Document, string) {
	t.Helper()
	key := map[string]any{"name": "Idempotency-Key", "in": "header", "required": true, "schema": map[string]any{"type": "string"}}
	pathParam := func(name string) map[string]any {
		return map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}}
	}
	operation := func(id string, params ...string) map[string]any {
		ps := []any{key}
		for _, p := range params {
			ps = append(ps, pathParam(p))
		}
		return map[string]any{"post": map[string]any{
			"operationId": id, "summary": hostileID, "parameters": ps,
			"responses":     map[string]any{"204": map[string]any{"description": "done"}},
			"x-idempotency": map[string]any{},
		}}
	}
	paths := map[string]any{"/hostile": operation(hostileID)}
	var cases strings.Builder
	for i := range n {
		a, b := randomParam(r), randomParam(r)
		for b == a {
			b = randomParam(r)
		}
		va, vb := "v"+strconv.Itoa(r.IntN(1000)), "w"+strconv.Itoa(r.IntN(1000))
		var tmpl, url string
		want := map[string]string{a: va}
		params := []string{a}
		switch i % 4 {
		case 0:
			tmpl, url = fmt.Sprintf("/r%d/{%s}", i, a), fmt.Sprintf("/r%d/%s", i, va)
		case 1:
			tmpl, url = fmt.Sprintf("/r%d/{%s}.json", i, a), fmt.Sprintf("/r%d/%s.json", i, va)
		case 2:
			tmpl, url = fmt.Sprintf("/r%d/x{%s}-{%s}", i, a, b), fmt.Sprintf("/r%d/x%s-%s", i, va, vb)
			want[b], params = vb, append(params, b)
		default:
			tmpl, url = fmt.Sprintf("/r%d/{%s}/s/{%s}", i, a, b), fmt.Sprintf("/r%d/%s/s/%s", i, va, vb)
			want[b], params = vb, append(params, b)
		}
		id := fmt.Sprintf("op%d", i)
		paths[tmpl] = operation(id, params...)
		fmt.Fprintf(&cases, "\t\t{%q, mount%s, %q, %#v},\n", tmpl, GoName(id), url, want)
	}
	doc := map[string]any{
		"openapi":                "3.0.3",
		"info":                   map[string]any{"title": "random path parameters", "version": "1"},
		"components":             map[string]any{"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}}},
		"security":               []any{map[string]any{"bearer": []any{}}},
		"x-idempotency-defaults": map[string]any{"scope": []any{"tenant"}, "retention": "72h"},
		"paths":                  paths,
	}
	src, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "paths.json")
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := spec.Load(context.Background(), file, spec.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return loaded, fmt.Sprintf(pathsTest, cases.String())
}

// pathsTest checks, per operation, that a request to a URL of its
// template reaches the handler on a ServeMux and on chi with every path
// parameter readable under its OpenAPI name.
const pathsTest = `package paths

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
)

func TestPathValues(t *testing.T) {
	for _, c := range []struct {
		template string
		mount    func(http.Handler) (string, http.Handler)
		url      string
		want     map[string]string
	}{
%s	} {
		var got map[string]string
		rec := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			got = map[string]string{}
			for name := range c.want {
				got[name] = r.PathValue(name)
			}
		})
		pattern, h := c.mount(rec)
		mux := http.NewServeMux()
		mux.Handle(pattern, h)
		path := strings.TrimSuffix(strings.TrimPrefix(pattern, "POST "), "{$}")
		router := chi.NewRouter()
		router.Method(http.MethodPost, path, h)
		for name, server := range map[string]http.Handler{"ServeMux": mux, "chi": router} {
			got = nil
			server.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, c.url, nil))
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%%s: POST %%s on %%s (pattern %%q) (-want +got):\n%%s", name, c.url, c.template, pattern, diff)
			}
		}
	}
}
`

// TestCommentText checks that spec text cannot end or open a comment.
func TestCommentText(t *testing.T) {
	got := commentText(hostileID)
	if strings.Contains(got, "*/") || strings.Contains(got, "/*") || strings.ContainsAny(got, "\n\r\x00\u2028") {
		t.Errorf("commentText(%q) = %q", hostileID, got)
	}
}

// TestHostileOperationID generates an operation whose operationId and
// summary try to end a comment and declare code, and requires Go files
// that parse with the payload inert: no init function, no line of a
// comment that the payload ended. TestPathsMount (-tags long) compiles
// and vets it.
func TestHostileOperationID(t *testing.T) {
	doc, _ := randomPathSpec(t, rand.New(rand.NewPCG(1, 1)), 0)
	out := requireJudged(t, "hostile operationId", doc, Options{Package: "hostile", GoDir: "hostile", Tests: true})
	if out == nil {
		t.Fatal("the hostile spec was refused")
	}
	for _, f := range out.Files {
		if !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Content, parser.ParseComments)
		if err != nil {
			t.Fatalf("%s does not parse: %v", f.Path, err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "init" {
				t.Errorf("%s declares init: the operationId escaped a comment", f.Path)
			}
		}
		for i, line := range strings.Split(string(f.Content), "\n") {
			if strings.Contains(line, "next") && !strings.HasPrefix(strings.TrimSpace(line), "//") && !strings.Contains(line, `"`) {
				t.Errorf("%s:%d: %q: a piece of the operationId left its comment", f.Path, i+1, line)
			}
		}
	}
}

// TestRandomPathsGenerate judges the spec of random path-parameter names
// that TestPathsMount (-tags long) compiles and mounts, and requires
// every operation generated with its own mount: the planner
// names the router's wildcards whatever the parameters are called.
func TestRandomPathsGenerate(t *testing.T) {
	doc, _ := randomPathSpec(t, rand.New(rand.NewPCG(9, 9)), 40)
	out := requireJudged(t, "random path parameters", doc, Options{Package: "paths", GoDir: "paths", Version: "v0.0.0-test"})
	if out == nil {
		t.Fatal("the random path-parameter spec was refused")
	}
	for _, f := range out.Files {
		if strings.HasSuffix(f.Path, "_operations.go") {
			if n := strings.Count(string(f.Content), "\nvar mountOp"); n != 40 {
				t.Errorf("%s declares %d mounts of the 40 random operations", f.Path, n)
			}
			return
		}
	}
	t.Fatal("no operations file generated")
}
