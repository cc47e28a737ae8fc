package pgstore_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refused is the list docs/scale-out.md shows as "refused on the portable
// path": PostgreSQL features that CockroachDB, YugabyteDB or a Citus
// cluster lacks, or has only node-local or behind flags, so that no
// statement the claim-first protocol, the effect worker, the sweeper, the
// support tooling or the schema steps send may use them. The doc's table
// and this slice are checked against each other (TestScaleOutDocListsRefused).
var refused = []struct {
	name    string
	pattern *regexp.Regexp
}{
	{"pg_advisory_*", regexp.MustCompile(`(?i)\bpg_(try_)?advisory_\w*\s*\(`)},
	{"hashtextextended", regexp.MustCompile(`(?i)\bhashtext(extended)?\s*\(`)},
	{"LISTEN/NOTIFY", regexp.MustCompile(`(?i)(\b(LISTEN|UNLISTEN|NOTIFY)\s+[a-z_"*]|\bpg_notify\s*\()`)},
}

// allowed are the statements that use a refused construct on purpose,
// each with its reason; docs/scale-out.md lists the same (source,
// statement, construct, reason) rows. A statement is named by its sqlc query
// name, a schema step by its file, a Go-held statement by its function or
// constant.
var allowed = []struct {
	source, statement, construct, reason string
}{
	{"runtime/internal/pgstore/queries/record.sql", "OpenKey", "pg_advisory_*",
		"the advisory protocol's opening statement; claim-first never sends it"},
	{"runtime/internal/pgstore/queries/record.sql", "TryOpenKey", "pg_advisory_*",
		"the advisory protocol under the reject policy; claim-first never sends it"},
	{"runtime/internal/pgstore/queries/status.sql", "GetStatus", "pg_advisory_*",
		"the status route's lock probe, sent only under the advisory protocol; claim-first sends GetStatusRecord"},
	{"runtime/schema/migrate.go", "applyStep", "pg_advisory_*",
		"schema.Migrate (idem.Migrate) serialises instances on PostgreSQL; on the distributed engines apply the generated migrations instead"},
	{"runtime/schema/migrate.go", "lockKey", "hashtextextended",
		"the key of schema.Migrate's advisory lock, as above"},
}

// sqlSources are the directories whose .sql files the runtime sends (the
// sqlc query files) or applies (the schema steps), relative to this
// package.
var sqlSources = []string{
	"queries",
	"../outbox/queries",
	"../../idemops/queries",
	"../../schema/steps",
}

// goSources are the packages whose Go code holds statements of its own,
// relative to this package. The sqlc-generated packages (internal/sqlcdb)
// are not read: they hold the queries/ files' statements, which
// TestSQLCGeneratedCodeIsCurrent keeps equal.
var goSources = []string{
	".",
	"../core",
	"../outbox",
	"../sweep",
	"../../schema",
	"../../idemops",
	"../../idem",
}

// statement is one statement as sent: where it comes from and its SQL
// with comments removed.
type statement struct {
	source, name string
	line         int
	sql          string
}

// TestPortableSQL fails when a statement the runtime sends uses a
// construct on the refused list, naming the file, the statement and the
// construct, unless the statement is an allowed exception; and when an
// allowed exception no longer uses its construct, so that the list in the
// doc stays true.
func TestPortableSQL(t *testing.T) {
	stmts := append(sqlStatements(t), goStatements(t)...)
	if len(stmts) < 40 {
		t.Fatalf("read %d statements; the sources moved?", len(stmts))
	}
	used := map[int]bool{}
	for _, s := range stmts {
		for _, c := range refused {
			if !c.pattern.MatchString(s.sql) {
				continue
			}
			i := slices.IndexFunc(allowed, func(a struct{ source, statement, construct, reason string }) bool {
				return a.source == s.source && a.statement == s.name && a.construct == c.name
			})
			if i < 0 {
				t.Errorf("%s:%d: %s uses %s, which docs/scale-out.md lists as refused on the portable path",
					s.source, s.line, s.name, c.name)
				continue
			}
			used[i] = true
		}
	}
	for i, a := range allowed {
		if !used[i] {
			t.Errorf("allowed exception %s %s (%s) no longer matches: drop it here and in docs/scale-out.md",
				a.source, a.statement, a.construct)
		}
	}
}

// TestScaleOutDocListsRefused checks that docs/scale-out.md's two marked
// tables show exactly the refused constructs and the allowed exceptions
// of this file.
func TestScaleOutDocListsRefused(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/scale-out.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, c := range refused {
		want = append(want, c.name)
	}
	rows := docTable(t, string(doc), "refused")
	var got []string
	for _, r := range rows {
		got = append(got, unquote(r[0]))
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/scale-out.md refused constructs = %q, the test checks %q", got, want)
	}
	want = nil
	for _, a := range allowed {
		want = append(want, a.source+" | "+a.statement+" | "+a.construct+" | "+a.reason)
	}
	got = nil
	for _, r := range docTable(t, string(doc), "allowed") {
		if len(r) < 4 {
			t.Fatalf("allowed row %q has fewer than 4 cells", r)
		}
		got = append(got, unquote(r[0])+" | "+unquote(r[1])+" | "+unquote(r[2])+" | "+strings.ReplaceAll(r[3], "`", ""))
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/scale-out.md allowed exceptions =\n%s\nthe test allows\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// docTable returns the cells of the body rows of the Markdown table
// between <!-- name:begin --> and <!-- name:end --> in doc.
func docTable(t *testing.T, doc, name string) [][]string {
	t.Helper()
	begin, end := "<!-- "+name+":begin -->", "<!-- "+name+":end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/scale-out.md has no %s … %s", begin, end)
	}
	var rows [][]string
	for n, line := range strings.Split(strings.TrimSpace(doc[i+len(begin):j]), "\n") {
		if n < 2 { // header and delimiter rows
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		rows = append(rows, cells)
	}
	return rows
}

// unquote drops the backquotes of a Markdown code span.
func unquote(cell string) string { return strings.Trim(cell, "`") }

// sqlStatements reads every .sql file of sqlSources: a query file as one
// statement per "-- name:" block, a schema step as one statement.
func sqlStatements(t *testing.T) []statement {
	t.Helper()
	var out []statement
	for _, dir := range sqlSources {
		files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no .sql files in %s (%v)", dir, err)
		}
		for _, f := range files {
			out = append(out, splitSQL(t, f)...)
		}
	}
	return out
}

// splitSQL splits file into statements by its "-- name: X" lines (the
// file's base name names a file without them), comments removed.
func splitSQL(t *testing.T, file string) []statement {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	source := repoPath(file)
	var out []statement
	cur := statement{source: source, name: filepath.Base(file), line: 1}
	var b strings.Builder
	flush := func() {
		cur.sql = b.String()
		if strings.TrimSpace(cur.sql) != "" {
			out = append(out, cur)
		}
		b.Reset()
	}
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "-- name: "); ok {
			flush()
			cur = statement{source: source, name: strings.Fields(rest)[0], line: n}
			continue
		}
		if k := strings.Index(line, "--"); k >= 0 {
			line = line[:k]
		}
		b.WriteString(line + "\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	flush()
	return out
}

// goStatements returns every string literal of the non-test Go files of
// goSources, named by the function, constant, variable or type that holds
// it.
func goStatements(t *testing.T) []statement {
	t.Helper()
	var out []statement
	fset := token.NewFileSet()
	for _, dir := range goSources {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no .go files in %s (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				for _, n := range namedNodes(d) {
					ast.Inspect(n.node, func(x ast.Node) bool {
						lit, ok := x.(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							return true
						}
						s, err := strconv.Unquote(lit.Value)
						if err != nil {
							t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
						}
						out = append(out, statement{source: repoPath(f), name: n.name, line: fset.Position(lit.Pos()).Line, sql: s})
						return true
					})
				}
			}
		}
	}
	return out
}

// named is a top-level function or one spec of a declaration, by name.
type named struct {
	name string
	node ast.Node
}

// namedNodes splits a top-level declaration into its function or its
// specs (each constant, variable or type of a group on its own), named.
func namedNodes(d ast.Decl) []named {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return []named{{d.Name.Name, d}}
	case *ast.GenDecl:
		var out []named
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.ValueSpec:
				out = append(out, named{s.Names[0].Name, s})
			case *ast.TypeSpec:
				out = append(out, named{s.Name.Name, s})
			}
		}
		return out
	}
	return nil
}

// repoPath turns a path relative to this package into one relative to
// the repository's root.
func repoPath(p string) string {
	return filepath.ToSlash(filepath.Join("runtime/internal/pgstore", p))
}
