package emit

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// The import paths generated code refers to.
const (
	idemImport        = "github.com/idemgen/idemgen/runtime/idem"
	idemimplImport    = "github.com/idemgen/idemgen/runtime/idemimpl"
	idemtestImport    = "github.com/idemgen/idemgen/runtime/idemtest"
	fingerprintImport = "github.com/idemgen/idemgen/runtime/fingerprint"
	formImport        = "github.com/idemgen/idemgen/runtime/form"
	jsondecodeImport  = "github.com/idemgen/idemgen/runtime/jsondecode"
	mathImport        = "math"
	regexpImport      = "regexp"
	pgxImport         = "github.com/jackc/pgx/v5"
	cmpImport         = "cmp"
	contextImport     = "context"
	errorsImport      = "errors"
	fmtImport         = "fmt"
	httpImport        = "net/http"
	jsonImport        = "encoding/json"
	stringsImport     = "strings"
	testingImport     = "testing"
	timeImport        = "time"
	urlImport         = "net/url"
)

// groupImports splits the import block of a rendered file, which jennifer
// writes as one sorted list, into the standard library's imports and,
// after a blank line, the others, as gofmt users write them: jennifer
// computes the imports from the names used, and this only lays them out.
// The groups keep jennifer's order, sorted by path, and the rest of the
// file is copied as it is, so the result is as gofmt prints it without a
// second formatting pass (which took a quarter of generate's CPU).
func groupImports(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var decl *ast.GenDecl
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() {
			decl = g
		}
	}
	if decl == nil {
		return src, nil
	}
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	var std, other []string
	for _, s := range decl.Specs {
		spec := s.(*ast.ImportSpec)
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, err
		}
		text := string(src[offset(spec.Pos()):offset(spec.End())])
		if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
			other = append(other, text)
		} else {
			std = append(std, text)
		}
	}
	if len(std) == 0 || len(other) == 0 {
		return src, nil
	}
	var b bytes.Buffer
	b.Write(src[:offset(decl.Pos())])
	fmt.Fprintf(&b, "import (\n\t%s\n\n\t%s\n)", strings.Join(std, "\n\t"), strings.Join(other, "\n\t"))
	b.Write(src[offset(decl.End()):])
	return b.Bytes(), nil
}
