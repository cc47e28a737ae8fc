package generator

import (
	"bytes"
	"encoding/json"
	"go/format"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/spec"
)

// FuzzHostileText feeds hostile text through every place where spec or
// configuration text reaches generated output — the operationId (Go
// names, contract values, comments), the summary and description (Go
// comments) and the database schema name (SQL statements and SQL comments)
// — and requires that what generate accepts keeps the structure of a
// benign spec's output: the Go files scan to the same tokens, comments and
// literals aside, with no init function, and the SQL files to the same
// statements, quoted names, string literals and comments aside. Text that
// escaped a comment or a quoted name would change that structure. The
// types file, which no formatter lays out, must also be as gofmt prints it.
func FuzzHostileText(f *testing.F) {
	for _, seed := range [][3]string{
		{"createOrder", "idem", "Create an order."},
		{"x */ func init() { panic(1) } /*", "idem\nDROP TABLE orders; --", "a\nb */ var _ = 1 /*"},
		{"a\u2028b\u0085c", `sch'ema"x`, "\x00\r\n//go:generate rm -rf /"},
		{"create order", "idem -- ; DROP SCHEMA public CASCADE", "`raw` \"quoted\" 'single'"},
		{"*/", "*/", "*/"},
		{"Δ-ünïcode", "ünïcode schema", "tab\there"},
		{"# heading - 1. * item", "idem", "  indented\n\n# heading"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	benign := hostileShape(f, "createOrder", "idem", "Create an order.")
	if benign == nil {
		f.Fatal("the benign spec does not generate")
	}
	f.Fuzz(func(t *testing.T, operationID, schemaName, text string) {
		got := hostileShape(t, operationID, schemaName, text)
		if got == nil {
			return // refused, with an error: nothing was generated
		}
		for path, want := range benign {
			if got[path] == nil {
				t.Fatalf("%s is missing from the output", path)
			}
			if !slices.Equal(got[path], want) {
				t.Errorf("%s changed shape: operationId %q, schema %q, text %q\nbenign: %q\nhostile: %q",
					path, operationID, schemaName, text, want, got[path])
			}
		}
	})
}

// hostileShape generates a one-operation spec with the given operationId,
// summary and description text into a package whose tables live in
// schemaName, and returns each emitted file's shape (see goShape and
// sqlShape) by path, or nil when check or generate refuses the input.
func hostileShape(t testing.TB, operationID, schemaName, text string) map[string][]string {
	t.Helper()
	doc := map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": "hostile", "version": "1"},
		"paths": map[string]any{"/orders": map[string]any{"post": map[string]any{
			"operationId": operationID, "summary": text, "description": text,
			"parameters": []any{map[string]any{"name": "Idempotency-Key", "in": "header", "required": true, "schema": map[string]any{"type": "string"}}},
			"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
				"type": "object", "required": []any{"sku"}, "properties": map[string]any{"sku": map[string]any{"type": "string", "description": text}},
			}}}},
			"responses":     map[string]any{"201": map[string]any{"description": text}},
			"x-idempotency": map[string]any{"scope": []any{}},
		}}},
	}
	src, err := json.Marshal(doc)
	if err != nil {
		return nil // text that JSON cannot carry never reaches a spec
	}
	path := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := spec.Load(t.Context(), path, spec.LoadOptions{})
	if err != nil {
		return nil
	}
	out, err := judgeAndGenerate(d, Options{
		Package: "hostile", GoDir: "go", Schema: schemaName, Version: "v0.0.0-fuzz",
		Migrations: MigrationsGoose, MigrationsDir: "migrations", SQLCDir: "sqlc", Tests: true,
	})
	if err != nil {
		return nil
	}
	shapes := map[string][]string{}
	for _, f := range out.Files {
		switch {
		case strings.HasSuffix(f.Path, ".go"):
			shapes[f.Path] = goShape(t, f.Path, f.Content)
			// The types file is written with no formatter (see emit's
			// declarations), and its comments hold the operationId.
			if formatted, err := format.Source(f.Content); strings.HasSuffix(f.Path, "_types.go") && (err != nil || !bytes.Equal(formatted, f.Content)) {
				t.Errorf("%s is not as gofmt prints it (format error: %v):\n%s", f.Path, err, f.Content)
			}
		case strings.HasSuffix(f.Path, ".sql"):
			shapes[f.Path] = sqlShape(f.Content)
		}
	}
	return shapes
}

// goShape returns the tokens of a Go file without its comments, with every
// identifier and literal reduced to its kind; it fails the test when the
// file does not scan or declares an init function.
func goShape(t testing.TB, path string, src []byte) []string {
	t.Helper()
	var s scanner.Scanner
	fset := token.NewFileSet()
	var errs scanner.ErrorList
	s.Init(fset.AddFile(path, -1, len(src)), src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	var shape []string
	prevFunc := false
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if prevFunc && tok == token.IDENT && lit == "init" {
			t.Errorf("%s declares func init", path)
		}
		prevFunc = tok == token.FUNC
		switch {
		case tok == token.IDENT || tok.IsLiteral():
			shape = append(shape, tok.String())
		case tok == token.SEMICOLON:
			shape = append(shape, ";") // automatic semicolons count as written ones
		default:
			shape = append(shape, tok.String())
		}
	}
	if errs.Len() > 0 {
		t.Errorf("%s does not scan: %v", path, errs)
	}
	return shape
}

// sqlShape returns an SQL file with each comment, quoted name and string
// literal replaced by a placeholder, as lines: what a name or text could
// change only by escaping its quotes or its comment.
func sqlShape(src []byte) []string {
	var b strings.Builder
	s := string(src)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteString("--\n")
		case c == '\'' || c == '"':
			for i++; i < len(s); i++ {
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c { // a doubled quote stays inside
						i++
						continue
					}
					break
				}
			}
			b.WriteByte(c)
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return strings.Split(b.String(), "\n")
}
