package emit

import (
	"go/format"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/idemgen/idemgen/generator/ir"
)

// TestDeclarationsAsGofmtPrintsThem renders declarations of every shape
// the types file holds, with the texts that could make gofmt lay them out
// otherwise (fields and constants of several widths, names wider in runes
// than in bytes, a tag that cannot be raw, comments whose wrapped lines
// start with list markers, #, or a number, externals whose guessed names
// clash with each other, with a known package or with a predeclared
// identifier), and requires that format.Source leave the file unchanged
// and that the imports name what the types use.
func TestDeclarationsAsGofmtPrintsThem(t *testing.T) {
	str := &ir.GoType{Kind: ir.TypeString}
	ext := func(path, name string) *ir.GoType {
		return &ir.GoType{Kind: ir.TypeExternal, External: &ir.ExternalType{Path: path, Name: name}}
	}
	enum := &ir.TypeDecl{Name: "Ünits", Kind: ir.DeclEnum, Source: "property unit of - 1. # the schema", JSON: true, Values: "valuesÜnits",
		Consts: []*ir.EnumConst{{Name: "ÜnitsKg", Value: "kg"}, {Name: "ÜnitsPoundsAvoirdupois", Value: "lb\t\"`ü"}}}
	bare := &ir.TypeDecl{Name: "Bare", Kind: ir.DeclEnum, Source: "schema #/components/schemas/Bare"}
	empty := &ir.TypeDecl{Name: "Empty", Kind: ir.DeclStruct, Source: "schema #/components/schemas/Empty", JSON: true}
	fields := []*ir.StructField{
		{Name: "A", JSONName: "a", Required: true, Type: &ir.GoType{Kind: ir.TypeBool}},
		{Name: "Ñandú", JSONName: "ñandú", Type: &ir.GoType{Kind: ir.TypePointer, Elem: &ir.GoType{Kind: ir.TypeInt32}}},
		{Name: "Count", JSONName: "count", Type: &ir.GoType{Kind: ir.TypeInt64}},
		{Name: "Ratio", JSONName: "ratio", Type: &ir.GoType{Kind: ir.TypeFloat64}},
		{Name: "At", JSONName: "at", Type: &ir.GoType{Kind: ir.TypeTime}},
		{Name: "Tags", JSONName: "tags", Type: &ir.GoType{Kind: ir.TypeSlice, Elem: str}},
		{Name: "Meta", JSONName: "meta", Type: &ir.GoType{Kind: ir.TypeMap, Elem: &ir.GoType{Kind: ir.TypeDeclared, Decl: enum}}},
		{Name: "Note", JSONName: "note", Type: &ir.GoType{Kind: ir.TypeNullable, Elem: str}},
		{Name: "Upload", JSONName: "upload", Required: true, Type: &ir.GoType{Kind: ir.TypeFile}},
		{Name: "Raw", JSONName: "raw`quoted\"", Type: &ir.GoType{Kind: ir.TypeRaw}},
		{Name: "ID", JSONName: "id", Type: ext("github.com/google/uuid", "UUID")},
		{Name: "Other", JSONName: "other", Type: ext("example.com/other/json", "Value")},
		{Name: "Third", JSONName: "third", Type: ext("example.com/third/json", "Value")},
		{Name: "Str", JSONName: "str", Type: ext("example.com/lib/string", "S")},
		{Name: "V2", JSONName: "v2", Type: ext("example.com/mod/v2", "T")},
		{Name: "Digits", JSONName: "digits", Type: ext("example.com/2024", "D")},
		{Name: "Plain", JSONName: "plain", Type: ext("", "string")},
	}
	order := make([]int, len(fields))
	for i := range order {
		order[i] = len(fields) - 1 - i
	}
	long := &ir.TypeDecl{Name: "Order", Kind: ir.DeclStruct, Fields: fields, JSON: true, Members: "membersOrder", MemberOrder: order,
		Source: "schema #/components/schemas/Order, a long description that wraps - onto lines # starting with markers 2. and - and # like this one does"}
	src := declarations("p", []*ir.TypeDecl{bare, empty, long, enum})
	formatted, err := format.Source(src)
	if err != nil {
		t.Fatalf("not Go: %v\n%s", err, src)
	}
	if string(formatted) != string(src) {
		t.Errorf("not as gofmt prints it:\n%s\ngofmt:\n%s", src, formatted)
	}
	file, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{}
	for _, s := range file.Imports {
		name := ""
		if s.Name != nil {
			name = s.Name.Name
		}
		imports[strings.Trim(s.Path.Value, `"`)] = name
	}
	want := map[string]string{
		"encoding/json":          "",
		"time":                   "",
		idemImport:               "",
		formImport:               "",
		"github.com/google/uuid": "uuid",
		"example.com/other/json": "json1",
		"example.com/third/json": "json2",
		"example.com/lib/string": "string1",
		"example.com/mod/v2":     "v2",
		"example.com/2024":       "pkg",
	}
	for path, name := range want {
		if got, ok := imports[path]; !ok || got != name {
			t.Errorf("import of %s: got name %q (imported %v), want %q", path, got, ok, name)
		}
	}
	if len(imports) != len(want) {
		t.Errorf("imports %v, want %v", imports, want)
	}
	for _, use := range []string{"json1.Value", "json2.Value", "string1.S", "v2.T", "pkg.D", "uuid.UUID", "Plain  string", "idem.Nullable[string]", "form.File", "json.RawMessage", "time.Time", "map[string]Ünits"} {
		if !strings.Contains(string(src), use) {
			t.Errorf("no %q in:\n%s", use, src)
		}
	}
}

// TestDeclarationsWithoutImports renders a file whose types name no
// package, and one that names one, as gofmt prints them.
func TestDeclarationsWithoutImports(t *testing.T) {
	one := &ir.TypeDecl{Name: "When", Kind: ir.DeclStruct, Source: "schema #/components/schemas/When",
		Fields: []*ir.StructField{{Name: "At", JSONName: "at", Required: true, Type: &ir.GoType{Kind: ir.TypeTime}}}}
	for _, tc := range []struct {
		name  string
		decls []*ir.TypeDecl
		want  string
	}{
		{"none", nil, "package p\n"},
		{"one import", []*ir.TypeDecl{one}, "import \"time\"\n"},
	} {
		src := declarations("p", tc.decls)
		if formatted, err := format.Source(src); err != nil || string(formatted) != string(src) {
			t.Errorf("%s: not as gofmt prints it (%v):\n%s", tc.name, err, src)
		}
		if !strings.Contains(string(src), tc.want) {
			t.Errorf("%s: no %q in:\n%s", tc.name, tc.want, src)
		}
	}
}
